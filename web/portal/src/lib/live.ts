// Following the investor's own journey live: one server-sent event stream per open deal page
// (GET …/investors/{id}/deals/{dealId}/live, authenticated by the session cookie, which EventSource
// sends by itself on the same origin). Each event only says that the journey changed (a payment
// received, a move by our team, a decided request); the page then reads the deal again. The
// browser reconnects by itself after a dropped connection, sending Last-Event-ID, so nothing is
// missed; when it gives up (the session ended), the page stays as it is until the next reload.
import { useEffect, useRef } from 'react';
import { portalApiBase } from './http.ts';

const enc = encodeURIComponent;

/** Calls `onChange` whenever the investor's journey in the deal changes, while the page is open. */
export function useFollowDeal(investorUserId: string, dealId: string, onChange: () => void) {
  const latest = useRef(onChange);
  latest.current = onChange;
  useEffect(() => {
    if (typeof EventSource === 'undefined') return;
    const source = new EventSource(`${portalApiBase}/investors/${enc(investorUserId)}/deals/${enc(dealId)}/live`);
    let opened = false;
    source.onopen = () => {
      // A reopened stream after a dropped connection: read once, for what happened meanwhile.
      if (opened) latest.current();
      opened = true;
    };
    source.onmessage = () => latest.current();
    return () => source.close();
  }, [investorUserId, dealId]);
}
