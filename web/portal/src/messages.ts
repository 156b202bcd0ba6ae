// Every word the portal shows, in one catalogue. `en` is complete; another language is a second
// object of the same type (`Messages`), which typecheck holds to every key and every parameter.
// Amounts and dates arrive here already formatted for the reader's locale (lib/format.ts).

const en = {
  appName: 'Investor portal',
  skipToContent: 'Skip to content',
  loading: 'Loading…',
  retry: 'Retry',
  close: 'Close',
  back: 'Back to my deals',
  copy: 'Copy',
  copied: 'Copied',
  copyLabel: (what: string) => `Copy ${what}`,
  notSet: 'not set',

  // Welcome: an invitation link.
  welcomeTitle: 'Welcome',
  welcomeChecking: 'Checking your invitation…',
  welcomeHello: (name: string) => `Hello ${name}.`,
  welcomeExplain:
    'You have been invited to follow your investments here. Create a passkey to sign in: your phone or computer keeps it, and you unlock it with your fingerprint, face or screen lock. There is no password.',
  welcomeCreate: 'Create my passkey',
  welcomeCreating: 'Waiting for your device…',
  welcomeInvalid: 'This invitation is not valid or has expired. Ask your contact for a new link.',
  welcomeUsedHint: 'If you have already created a passkey, sign in with it.',
  goToSignIn: 'Go to sign in',

  // Sign in.
  signInTitle: 'Sign in',
  signInExplain: 'Sign in with the passkey you created from your invitation.',
  signInButton: 'Sign in with a passkey',
  signInWaiting: 'Waiting for your device…',
  signInNoPasskey: 'No passkey yet? Open the invitation link you received by e-mail or from your contact.',
  signedOutHere: 'You are signed out on this device.',
  signedOutEverywhere: 'You are signed out on every device.',
  sessionEnded: 'Your session has ended. Sign in again.',
  passkeyCancelled: 'The passkey request was cancelled or timed out. Try again when you are ready.',
  passkeyUnsupported: 'This browser cannot use passkeys. Open the link in an up-to-date browser.',
  wrongAddress: (address: string) => `The portal works only at ${address}: open it there (passkeys belong to that one address).`,
  openRightAddress: 'Open the portal there',
  passkeyRefused: 'Your passkey was not accepted. Try again, or ask your contact for a new invitation.',

  // Top bar.
  signedInAs: (name: string) => `Signed in as ${name}`,
  signOut: 'Sign out',
  signOutHere: 'Sign out on this device',
  signOutEverywhere: 'Sign out on every device',
  accountMenu: 'Account',
  mailLanguage: 'Language of your e-mails',
  mailLanguageSaved: 'Saved: your next e-mails come in this language where a translation exists, otherwise in English.',

  // My deals.
  dealsTitle: 'My deals',
  dealsEmpty: 'You are not in any deal yet.',
  currentStep: 'Where you stand',
  notStarted: 'Not started',
  committed: 'Committed',
  remaining: 'Remaining to pay',
  openDeal: (name: string) => `Open ${name}`,
  actionWaiting: 'Your action is needed',

  // One deal.
  dealNotFound: 'There is no such deal among yours.',
  timelineTitle: 'Your steps',
  timelineEmpty: 'No steps yet.',
  documentsTitle: 'Your documents',
  documentsEmpty: 'No documents yet. Our team shares them here as your investment goes on.',
  documentDownload: (title: string) => `Download ${title} (PDF)`,
  documentSize: (kib: string, when: string) => `PDF, ${kib}, shared on ${when}`,
  enteredOn: (when: string) => `Reached on ${when}`,
  agreementTitle: 'Your subscription agreement',
  agreementToSign: 'Read your subscription agreement, filled with your details, then sign it with your passkey.',
  agreementOpen: 'Read the agreement (PDF)',
  agreementConfirm: 'I have read the subscription agreement and agree to its terms.',
  agreementSign: 'Sign with passkey',
  agreementSigning: 'Signing…',
  agreementSigned: (when: string) => `You signed on ${when}. Our team countersigns it next.`,
  agreementCountersigned: (when: string) => `Signed by you and countersigned on ${when}. Keep a copy.`,
  agreementDownloadSigned: 'Download the signed agreement (PDF)',
  agreementDownloadCountersigned: 'Download the countersigned agreement (PDF)',
  agreementChanged: 'Your agreement changed since you opened it. Read it again, then sign.',
  nowAt: (step: string) => `You are at: ${step}`,
  nextTitle: 'What happens next',
  nextByStaff: (steps: string) => `Our team will move you on to ${steps}. There is nothing for you to do now.`,
  nextNone: 'This is the last step. There is nothing more to do.',
  nextWithdrawn: 'You have withdrawn from this deal. There is nothing more to do.',
  nextYou: 'You can take the next step yourself:',
  waitsForSignature: (step: string) => `${step}: sign your subscription agreement below first. Our team then countersigns it, and you can take this step here.`,
  waitsForCountersignature: (step: string) => `${step}: your agreement is signed. Once our team has countersigned it, you can take this step here.`,
  stepKindComplete: 'complete',
  stepKindWithdrawn: 'withdrawn',

  // The step's form.
  formTitle: (step: string) => `Go to ${step}`,
  formSubmit: (step: string) => `Confirm: ${step}`,
  formSending: 'Sending…',
  formDone: (step: string) => `Done: you are now at ${step}.`,
  required: 'required',
  optional: 'optional',
  chooseOne: 'Choose…',
  amountLabel: (label: string) => `${label} (amount)`,
  currencyLabel: 'Currency',
  amountHint: 'Digits, with a decimal point if needed, e.g. 25000 or 25000.50',
  invalidAmount: 'Enter an amount in digits, e.g. 25000 or 25000.50.',
  numberHint: 'Digits, with a minus sign or a decimal point if needed, e.g. 12, -3.5 or 0.25',
  invalidNumber: 'Enter a number in digits, e.g. 12, -3.5 or 0.25, without spaces or commas.',
  invalidDate: 'Choose a date.',
  invalidEmail: 'Enter an e-mail address, e.g. name@example.com.',
  missingField: (label: string) => `${label} is required.`,
  fixFields: 'Some answers need a correction: see the marked fields.',

  // How to pay.
  payTitle: 'How to pay',
  payExplain: 'Make a bank transfer with these details. Quote the reference exactly, so that we can match your payment.',
  beneficiary: 'Beneficiary',
  iban: 'IBAN',
  bic: 'BIC',
  reference: 'Reference',
  received: 'Received so far',
  stillToPay: 'Still to pay',
  qrTitle: 'Pay with your banking app',
  qrExplain: 'Scan this code with your banking app: it fills in the transfer for you (SEPA, EUR).',
  qrExplainPhone: 'On this phone, copy the details above into your banking app. From another device, scan this code with your banking app (SEPA, EUR).',
  qrAlt: (amount: string, reference: string) => `Payment QR code: ${amount}, reference ${reference}`,
  payNotReady: 'The bank details are not published yet. We will show them here as soon as they are.',
  payeeChanged: (when: string) =>
    `The bank details changed on ${when}. Pay only into the account shown here. If anyone sent you other bank details, do not pay: tell us.`,
  paidInFull: 'Paid in full. Thank you.',

  // Request an edit.
  editTitle: 'Request an edit',
  editExplain: 'Ask us to change your commitment or to withdraw. Our team decides; you see the decision here.',
  editKind: 'What would you like?',
  editAmount: 'A different amount',
  editWithdraw: 'To withdraw',
  newAmount: (currency: string) => `New amount (${currency})`,
  reason: 'Reason',
  reasonHint: 'A few words for our team.',
  editSubmit: 'Send the request',
  editSent: 'Your request was sent. You will see the decision here.',
  editNoCommitment: 'You can request an edit once you have made a commitment.',
  editPending: 'You have a request waiting for a decision:',
  editPendingWait: 'You can ask for another change once it is decided.',
  requestsTitle: 'Your requests',
  requestsEmpty: 'No requests yet.',
  requestAmount: (amount: string) => `A different amount: ${amount}`,
  requestWithdraw: 'To withdraw',
  requestAsked: (when: string) => `Asked on ${when}`,
  requestDecided: (when: string) => `Decided on ${when}`,
  statusPending: 'Waiting for a decision',
  statusApproved: 'Approved',
  statusRejected: 'Declined',
  decisionNote: (note: string) => `Note from our team: ${note}`,
  historyTitle: 'Commitment history',
  historyEmpty: 'No commitment yet.',
  historyBy: (who: string, when: string) => `${who}, ${when}`,
  byYou: 'By you',
  byStaff: 'By our team',

  // Identity checks (KYC) and the investor's category.
  kycTitle: 'Identity checks',
  kycExplain: 'Upload each document we ask for: a PDF, or a photo as JPEG or PNG. Our team checks it and tells you here if another one is needed.',
  kycLater: 'We will ask for your identity documents when you reach the identity check step.',
  kycDone: (level: number, until: string) => `Your identity checks are complete (level ${level}), valid until ${until}.`,
  kycExpired: (on: string) => `Your identity checks expired on ${on}. Upload your documents again, please.`,
  kycKinds: {
    identity: 'Identity document (passport or identity card)',
    'proof-of-address': 'Proof of address (a recent bill or bank statement)',
    'register-extract': 'Company register extract',
    'beneficial-owners': 'List of beneficial owners',
    'category-evidence': 'Certificate of your investor category',
  } as Record<string, string>,
  kycStates: { requested: 'To upload', submitted: 'Being checked', accepted: 'Accepted', rejected: 'Another one needed' } as Record<string, string>,
  kycReason: (reason: string) => `Our team says: ${reason}`,
  kycUpload: 'Upload a file',
  kycUploadFor: (what: string) => ` for: ${what}`,
  kycUploading: 'Uploading…',
  kycUploaded: 'Uploaded. Our team will check it.',
  categoryTitle: 'Your investor category',
  categoryExplain: 'This deal may be offered only to some investors. Choose the category that applies to you and read its statement.',
  categoryChoose: 'Which category applies to you?',
  categoryNames: {
    'certified-high-net-worth': 'Certified high net worth individual',
    'certified-sophisticated': 'Certified sophisticated investor',
    'self-certified-sophisticated': 'Self-certified sophisticated investor',
    'elective-professional': 'Elective professional client',
    professional: 'Professional client',
  } as Record<string, string>,
  categoryStatement: 'The statement',
  categoryAgree: 'I have read this statement and I confirm it applies to me.',
  categoryConfirm: 'Confirm my category',
  categoryConfirmed: 'Thank you: your category is recorded.',
  categoryCurrent: (name: string, until: string) => `Your category: ${name}, valid until ${until}.`,
  categoryNeedsCertificate: 'This category needs a certificate: upload it below, and our team will check it.',
  categoryWaiting: (name: string) => `You confirmed: ${name}. Our team is checking your certificate.`,

  // Refusals, in plain words.
  errorTitle: 'Something went wrong.',
  errorNetwork: 'The service does not answer. Check your connection, then retry.',
  errorNotAllowed: (detail: string) => `This is not possible: ${detail}`,
  errorNotFound: 'We could not find this. The link may be out of date.',
  errorConflict: (detail: string) => `This is no longer possible from where you stand: ${detail}`,
  errorRefused: (detail: string) => `Not accepted: ${detail}`,
  errorTooMany: 'Too many attempts. Wait a minute, then try again.',
  errorUnavailable: 'The service is busy. Try again in a few seconds.',
  errorFailed: (id: string) => `The service failed. Try again; if it persists, quote ${id} to your contact.`,
  pageNotFound: 'There is no page at this address.',
};

export type Messages = typeof en;
export type MessageKey = keyof Messages;

const catalogues: Record<string, Messages> = { en };

/** The catalogue of the browser's first language we have, else English. */
function pick(languages: readonly string[]): Messages {
  for (const language of languages) {
    const found = catalogues[language] ?? catalogues[language.split('-')[0]!];
    if (found) return found;
  }
  return en;
}

export const m: Messages = pick(typeof navigator === 'undefined' ? [] : (navigator.languages ?? [navigator.language].filter(Boolean)));
