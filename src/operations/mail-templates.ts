// Renders a mail from its kind, language and variables: the fund's templates (MAIL_TEMPLATE_DIR)
// first, then the built-in ones, in the mail's language and then in English. Files in the folder:
// `<language>/<kind>.subject`, `<language>/<kind>.txt`, `<language>/<kind>.html` (any may be left
// out). Every template is checked when the folder is loaded: a placeholder its kind does not have
// stops the start, naming the file.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { escapeHtml, fillTemplate, type MailKind, type MailLanguage, mailKinds, mailLanguages, unknownVariables } from '../domain/mail.ts';
import { englishTemplates, type MailTemplate, translatedTemplates } from './mail-templates-en.ts';

export interface RenderedMail {
  subject: string;
  text: string;
  html: string;
}

type Overrides = Partial<Record<MailLanguage, Partial<Record<MailKind, Partial<MailTemplate>>>>>;

const parts = [
  ['subject', 'subject'],
  ['text', 'txt'],
  ['html', 'html'],
] as const;

/** Reads and checks a template folder; throws naming the first file that uses an unknown variable. */
export function loadTemplateFolder(folder: string | undefined): Overrides {
  const overrides: Overrides = {};
  if (folder === undefined) return overrides;
  for (const language of mailLanguages) {
    for (const kind of mailKinds) {
      for (const [part, extension] of parts) {
        const file = path.join(folder, language, `${kind}.${extension}`);
        let content: string;
        try {
          content = readFileSync(file, 'utf8');
        } catch (err) {
          if ((err as { code?: string }).code === 'ENOENT') continue;
          throw err;
        }
        const unknown = unknownVariables(kind, content);
        if (unknown.length > 0) throw new Error(`${file} uses ${unknown.map((u) => `{{${u}}}`).join(', ')}, which ${kind} mails do not have`);
        const byKind = overrides[language] ?? {};
        byKind[kind] = { ...byKind[kind], [part]: part === 'subject' ? content.trim() : content };
        overrides[language] = byKind;
      }
    }
  }
  return overrides;
}

export type Renderer = (kind: MailKind, language: MailLanguage, variables: Readonly<Record<string, string>>) => RenderedMail;

/** A renderer over a loaded folder (see loadTemplateFolder). */
export function createRenderer(overrides: Overrides): Renderer {
  const pick = (kind: MailKind, language: MailLanguage, part: keyof MailTemplate): string =>
    overrides[language]?.[kind]?.[part] ??
    (language === 'en' ? undefined : translatedTemplates[language][kind]?.[part]) ??
    overrides.en?.[kind]?.[part] ??
    englishTemplates[kind][part];
  return (kind, language, variables) => {
    const subject = fillTemplate(pick(kind, language, 'subject'), variables, false).replace(/[\r\n]+/g, ' ');
    const text = fillTemplate(pick(kind, language, 'text'), variables, false);
    const body = fillTemplate(pick(kind, language, 'html'), variables, true);
    const html = `<!doctype html>\n<html lang="${language}"><head><meta charset="utf-8"><title>${escapeHtml(subject)}</title></head>\n<body>\n${body}\n</body></html>\n`;
    return { subject, text, html };
  };
}
