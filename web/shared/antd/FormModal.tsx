// The dialog every form opens in: its title, Save (the form's submit, loading while the save is
// pending) and Cancel, and nothing kept when it closes.
import { Modal, type FormInstance } from 'antd';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';

export function FormModal<V>({ form, title, pending, onClose, width, okText, okDisabled, children }: {
  form: FormInstance<V>;
  title: ReactNode;
  /** The save's `isPending` (useSave). */
  pending: boolean;
  onClose: () => void;
  width?: number;
  okText?: string;
  /** Save cannot be pressed (the form has nothing it could save). */
  okDisabled?: boolean;
  children: ReactNode;
}) {
  const { t } = useTranslation();
  return (
    <Modal
      open
      width={width}
      title={title}
      onCancel={onClose}
      onOk={() => form.submit()}
      okText={okText ?? t('kit:action.save')}
      cancelText={t('kit:action.cancel')}
      confirmLoading={pending}
      okButtonProps={okDisabled ? { disabled: true } : undefined}
      destroyOnHidden
    >
      {children}
    </Modal>
  );
}
