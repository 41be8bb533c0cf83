// An action on a list's selected rows (delete them, end them): a danger button that asks first,
// disabled while no row is selected, with the number selected beside it.
import { Button, Popconfirm, Space, Typography } from 'antd';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';

export function SelectionAction({ count, label, confirm, onConfirm }: { count: number; label: ReactNode; confirm: ReactNode; onConfirm: () => void }) {
  const { t } = useTranslation();
  return (
    <Space>
      <Popconfirm title={confirm} onConfirm={onConfirm} disabled={count === 0}>
        <Button danger disabled={count === 0}>{label}</Button>
      </Popconfirm>
      {count > 0 && <Typography.Text type="secondary">{t('kit:state.selected', { count })}</Typography.Text>}
    </Space>
  );
}
