// The recovery codes of an authenticator, shown once (when it is bound, or when new ones are
// made): the list, a download as a text file, printing and copying them, and the person's word
// that they saved them before going on (the server never shows them again).
import { CopyOutlined, DownloadOutlined, PrinterOutlined } from '@ant-design/icons';
import { Alert, App, Button, Checkbox, Space, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { addStrings } from '../i18n/index.ts';
import { strings } from './authenticatorStrings.ts';

addStrings('authenticator', strings);

/** The text file of the codes: what they are, then one numbered code a line. */
function textOf(codes: string[], lines: string[]): string {
  return [...lines, '', ...codes.map((c, i) => `${String(i + 1).padStart(2, ' ')}. ${c}`), ''].join('\r\n');
}

/** Prints the codes from a frame of their own, so that nothing else of the page is printed. */
function printCodes(title: string, lines: string[], codes: string[]) {
  const frame = document.createElement('iframe');
  frame.setAttribute('aria-hidden', 'true');
  frame.style.cssText = 'position:fixed;width:0;height:0;border:0;right:0;bottom:0';
  document.body.appendChild(frame);
  const doc = frame.contentDocument!;
  const esc = (s: string) => s.replace(/[&<>]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;' })[c]!);
  doc.open();
  doc.write(`<!doctype html><meta charset="utf-8"><title>${esc(title)}</title>
    <body style="font:14px system-ui,sans-serif;margin:32px">
    <h1 style="font-size:18px">${esc(title)}</h1>${lines.slice(1).map((l) => `<p>${esc(l)}</p>`).join('')}
    <ol style="font:16px ui-monospace,monospace;columns:2;line-height:2">${codes.map((c) => `<li>${esc(c)}</li>`).join('')}</ol></body>`);
  doc.close();
  frame.contentWindow!.focus();
  frame.contentWindow!.print();
  setTimeout(() => frame.remove(), 60_000);
}

export function RecoveryCodes({ codes, username, doneText, onDone }: {
  codes: string[];
  /** Named in the file and on paper (unknown in the binding step before /info). */
  username?: string | undefined;
  doneText: string;
  onDone: () => void;
}) {
  const { t, i18n } = useTranslation('authenticator');
  const { message } = App.useApp();
  const [saved, setSaved] = useState(false);
  const lines = [
    t('fileTitle'),
    ...(username ? [t('fileFor', { username })] : []),
    t('fileMade', { time: new Date().toLocaleString(i18n.language) }),
    t('fileHelp'),
  ];
  const download = () => {
    const url = URL.createObjectURL(new Blob([textOf(codes, lines)], { type: 'text/plain;charset=utf-8' }));
    const a = document.createElement('a');
    a.href = url;
    a.download = `recovery-codes${username ? `-${username}` : ''}.txt`;
    document.body.appendChild(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
  };
  const copy = () => {
    navigator.clipboard.writeText(codes.join('\n')).then(() => void message.success(t('copied')), () => {});
  };

  return (
    <section aria-label={t('codesTitle')} className="recovery">
      <Typography.Title level={5} style={{ marginTop: 0 }}>{t('codesTitle')}</Typography.Title>
      <Alert type="warning" showIcon title={t('codesWarning')} description={t('codesHelp')} style={{ marginBottom: 12 }} />
      <ol className="recovery-codes" aria-label={t('codesList')}>
        {codes.map((c) => <li key={c}><code>{c}</code></li>)}
      </ol>
      <Space wrap style={{ marginBottom: 12 }}>
        <Button icon={<DownloadOutlined />} onClick={download}>{t('download')}</Button>
        <Button icon={<PrinterOutlined />} onClick={() => printCodes(lines[0]!, lines, codes)}>{t('print')}</Button>
        {typeof navigator !== 'undefined' && navigator.clipboard && <Button icon={<CopyOutlined />} onClick={copy}>{t('copy')}</Button>}
      </Space>
      <div>
        <Checkbox checked={saved} onChange={(e) => setSaved(e.target.checked)}>{t('saved')}</Checkbox>
      </div>
      <Button type="primary" disabled={!saved} onClick={onDone} style={{ marginTop: 12 }}>{doneText}</Button>
    </section>
  );
}
