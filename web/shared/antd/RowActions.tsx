// A row's actions in a list: Edit, the screen's own links, then Delete; Edit and Delete shown when
// the screen gives them (that is, when the caller may). Delete asks first, naming the row; each
// link's accessible name carries the row's name, so that a screen reader (and a test) can tell
// the rows' links apart.
import { Button, Popconfirm, Space } from 'antd';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';

export function RowActions({ name, onEdit, onDelete, children }: {
  /** The row's name, in the confirmation and the links' accessible names. */
  name: string;
  onEdit?: (() => void) | false;
  onDelete?: (() => void) | false;
  children?: ReactNode;
}) {
  const { t } = useTranslation();
  return (
    <Space size={0}>
      {onEdit && <Button type="link" size="small" aria-label={`${t('kit:action.edit')} ${name}`} onClick={onEdit}>{t('kit:action.edit')}</Button>}
      {children}
      {onDelete && (
        <Popconfirm title={t('kit:state.confirmDelete', { name })} onConfirm={onDelete}>
          <Button type="link" size="small" danger aria-label={`${t('kit:action.delete')} ${name}`}>{t('kit:action.delete')}</Button>
        </Popconfirm>
      )}
    </Space>
  );
}
