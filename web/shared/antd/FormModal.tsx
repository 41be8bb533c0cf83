// The dialog every form opens in, with its form: the title, Save (the form's submit, loading
// while the save is pending) and Cancel, the form laid out vertically, and nothing kept when it
// closes. The dialog's children are the form's fields; `intro` is shown above the form, `aside`
// beside it (a map, a preview), and `refusal` (useSave's: a refusal that names no field) above
// the intro, as an alert.
import { Alert, Form, Modal, type FormInstance, type FormProps } from 'antd';
import type { Key, ReactNode } from 'react';
import { useTranslation } from 'react-i18next';

export function FormModal<V>({ form, name, title, pending, onClose, onFinish, onFinishFailed, initialValues, formKey, intro, aside, width, okText, okDisabled, refusal, children }: {
  form: FormInstance<V>;
  /** The form's name: its fields' element ids start with it. */
  name: string;
  title: ReactNode;
  /** The save's `isPending` (useSave). */
  pending: boolean;
  onClose: () => void;
  /** The save (useSave's `submit`), with the checked values. */
  onFinish: (values: V) => void;
  onFinishFailed?: FormProps<V>['onFinishFailed'];
  initialValues?: FormProps<V>['initialValues'];
  /** A new key starts the form again: for initial values that come from data loaded after it opened. */
  formKey?: Key;
  intro?: ReactNode;
  /** Beside the form, and the class of the element that holds them both (which lays them out). */
  aside?: { node: ReactNode; className: string };
  width?: number;
  okText?: string;
  /** Save cannot be pressed (the form has nothing it could save). */
  okDisabled?: boolean;
  /** The save's refusal that no field took (useSave's `refusal`), shown above the form. */
  refusal?: string | undefined;
  children: ReactNode;
}) {
  const { t } = useTranslation();
  const body = (
    <Form<V> key={formKey} form={form} name={name} layout="vertical" onFinish={onFinish} onFinishFailed={onFinishFailed} initialValues={initialValues}>
      {children}
    </Form>
  );
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
      {refusal && <Alert type="error" showIcon role="alert" style={{ marginBottom: 12 }} title={refusal} />}
      {intro}
      {aside ? <div className={aside.className}>{body}{aside.node}</div> : body}
    </Modal>
  );
}
