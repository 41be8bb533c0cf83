// A row's link button that asks before it acts (cancel, delete, kick out): the same bubble as
// antd's Popconfirm, but the Popconfirm is only mounted once the button is first clicked. A page
// of rows renders a plain button per action; a Popconfirm per row (a trigger, a portal and their
// hooks) made a page of orders take twice as long to appear.
import { Button, Popconfirm } from 'antd';
import { useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';

interface Props {
  title: ReactNode;
  onConfirm: () => void;
  danger?: boolean;
  /** The bubble's buttons, when "Confirm" / "Cancel" would be ambiguous ("Cancel order" / "Keep it"). */
  okText?: string;
  cancelText?: string;
  children: ReactNode;
}

export function ConfirmButton({ title, onConfirm, danger, okText, cancelText, children }: Props) {
  const [armed, setArmed] = useState(false);
  const [open, setOpen] = useState(false);
  const button = <Button type="link" size="small" danger={danger} onClick={() => { setArmed(true); setOpen(true); }}>{children}</Button>;
  if (!armed) return button;
  return <Armed title={title} open={open} setOpen={setOpen} onConfirm={onConfirm} okText={okText} cancelText={cancelText}>{button}</Armed>;
}

/** The bubble, with its translated buttons: a row that was never clicked holds no translation hook. */
function Armed({ title, open, setOpen, onConfirm, okText, cancelText, children }: Omit<Props, 'danger'> & { open: boolean; setOpen: (v: boolean) => void }) {
  const { t } = useTranslation();
  return (
    <Popconfirm title={title} open={open} onOpenChange={setOpen} onConfirm={onConfirm} okText={okText ?? t('action.confirm')} cancelText={cancelText ?? t('action.cancel')}>
      {children}
    </Popconfirm>
  );
}
