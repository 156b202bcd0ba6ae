// Streaming XML for the sanctions lists: the files are tens of MB, so only one record (an EU
// sanctionEntity, an OFAC sdnEntry, a UN INDIVIDUAL or ENTITY) is held in memory at a time, as a
// small tree of elements. Namespaces are ignored: the lists use one default namespace each.

import { SaxesParser } from 'saxes';

/** Bounds of one record: the lists' records are a few levels deep and hold dozens of elements. */
export const RECORD_LIMITS = { depth: 32, elements: 10_000, textBytes: 64 * 1024 };

export interface XmlElement {
  readonly name: string;
  readonly attributes: Readonly<Record<string, string>>;
  readonly children: XmlElement[];
  text: string;
}

function localName(name: string): string {
  const colon = name.indexOf(':');
  return colon < 0 ? name : name.slice(colon + 1);
}

/** The root element's name and each record element, as the chunks arrive. */
export async function* xmlRecords(
  chunks: AsyncIterable<string | Uint8Array>,
  recordNames: ReadonlySet<string>,
  onRoot: (root: XmlElement) => void = () => {},
): AsyncGenerator<XmlElement> {
  const parser = new SaxesParser();
  const ready: XmlElement[] = [];
  const stack: XmlElement[] = [];
  let depthInRecord = 0;
  let elementsInRecord = 0;
  let textInRecord = 0;
  parser.on('doctype', () => {
    throw new Error('a DOCTYPE is not accepted (the lists have none)');
  });
  parser.on('opentag', (tag) => {
    const attributes: Record<string, string> = {};
    for (const [key, value] of Object.entries(tag.attributes)) attributes[localName(key)] = String(value);
    const element: XmlElement = { name: localName(tag.name), attributes, children: [], text: '' };
    if (stack.length === 0 && depthInRecord === 0 && ready.length === 0 && !recordNames.has(element.name)) {
      onRoot(element);
    }
    if (depthInRecord > 0) {
      if (depthInRecord >= RECORD_LIMITS.depth) throw new Error(`a record nests deeper than ${RECORD_LIMITS.depth} elements`);
      if (++elementsInRecord > RECORD_LIMITS.elements) throw new Error(`a record holds more than ${RECORD_LIMITS.elements} elements`);
      stack.at(-1)!.children.push(element);
      stack.push(element);
      depthInRecord++;
    } else if (recordNames.has(element.name)) {
      stack.push(element);
      depthInRecord = 1;
      elementsInRecord = 1;
      textInRecord = 0;
    }
  });
  const addText = (text: string) => {
    if (depthInRecord === 0) return;
    textInRecord += text.length;
    if (textInRecord > RECORD_LIMITS.textBytes) throw new Error(`a record holds more than ${RECORD_LIMITS.textBytes / 1024} KiB of text`);
    stack.at(-1)!.text += text;
  };
  parser.on('text', addText);
  parser.on('cdata', addText);
  parser.on('closetag', () => {
    if (depthInRecord === 0) return;
    const element = stack.pop()!;
    element.text = element.text.trim();
    depthInRecord--;
    if (depthInRecord === 0) ready.push(element);
  });
  const decoder = new TextDecoder('utf-8', { fatal: true });
  for await (const chunk of chunks) {
    parser.write(typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true }));
    yield* ready.splice(0);
  }
  parser.write(decoder.decode());
  parser.close();
  yield* ready.splice(0);
}

export function child(element: XmlElement, name: string): XmlElement | undefined {
  return element.children.find((c) => c.name === name);
}

export function childrenNamed(element: XmlElement, name: string): XmlElement[] {
  return element.children.filter((c) => c.name === name);
}

/** Every descendant with this name, depth first. */
export function descendants(element: XmlElement, name: string): XmlElement[] {
  const found: XmlElement[] = [];
  for (const c of element.children) {
    if (c.name === name) found.push(c);
    found.push(...descendants(c, name));
  }
  return found;
}

export function childText(element: XmlElement, name: string): string {
  return child(element, name)?.text ?? '';
}

export function joinName(...parts: (string | undefined)[]): string {
  return parts
    .filter((p) => p !== undefined && p.trim() !== '')
    .map((p) => p!.trim())
    .join(' ');
}

export function unique(values: Iterable<string>): string[] {
  return [...new Set([...values].filter((v) => v.trim() !== ''))];
}
