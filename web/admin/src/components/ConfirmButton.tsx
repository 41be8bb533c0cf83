// A row's link button that asks before it acts (cancel, delete, kick out): the same bubble as
// antd's Popconfirm, but the Popconfirm is only mounted once the button is first clicked. A page
// of rows renders a plain button per action; a Popconfirm per row (a trigger, a portal and their
// hooks) made a page of orders take twice as long to appear.
import { Button, Popconfirm } from 'antd';
import { useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';

export function ConfirmButton({ title, onConfirm, danger, children }: { title: ReactNode; onConfirm: () => void; danger?: boolean; children: ReactNode }) {
  const [armed, setArmed] = useState(false);
  const [open, setOpen] = useState(false);
  const button = <Button type="link" size="small" danger={danger} onClick={() => { setArmed(true); setOpen(true); }}>{children}</Button>;
  if (!armed) return button;
  return <Armed title={title} open={open} setOpen={setOpen} onConfirm={onConfirm}>{button}</Armed>;
}

/** The bubble, with its translated buttons: a row that was never clicked holds no translation hook. */
function Armed({ title, open, setOpen, onConfirm, children }: { title: ReactNode; open: boolean; setOpen: (v: boolean) => void; onConfirm: () => void; children: ReactNode }) {
  const { t } = useTranslation();
  return (
    <Popconfirm title={title} open={open} onOpenChange={setOpen} onConfirm={onConfirm} okText={t('action.confirm')} cancelText={t('action.cancel')}>
      {children}
    </Popconfirm>
  );
}
