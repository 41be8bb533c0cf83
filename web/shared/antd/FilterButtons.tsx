// The buttons every list's filter form ends with: search (the form's submit) and reset (no filters).
import { Button, Space } from 'antd';
import { useTranslation } from 'react-i18next';

export function FilterButtons({ onReset }: { onReset: () => void }) {
  const { t } = useTranslation();
  return (
    <Space>
      <Button type="primary" htmlType="submit">{t('kit:action.search')}</Button>
      <Button onClick={onReset}>{t('kit:action.reset')}</Button>
    </Space>
  );
}
