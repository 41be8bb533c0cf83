// The app blacklist: package identifiers of mock-location apps that the worker app refuses to
// run alongside; add (validated as the server does) and remove.
import { useQuery } from '@tanstack/react-query';
import { Button, Card, Form, Input, Popconfirm, Space, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { api, call, type Body } from '../api/client.ts';
import { useSave } from '../../../shared/antd/useSave.ts';
import { useChange } from '../../../shared/antd/useChange.ts';
import { QueryDataList } from '../../../shared/antd/DataList.tsx';

const PACKAGE_ID = /^[A-Za-z0-9_][A-Za-z0-9_-]*(\.[A-Za-z0-9_-]+)+$/;

export default function Blacklist() {
  const { t } = useTranslation('manager');
  const { change } = useChange(['blacklist']);
  const [form] = Form.useForm<Body<'/api/managers/security/app-blacklist', 'post'>>();
  const list = useQuery({ queryKey: ['blacklist'], queryFn: () => call(api.GET('/api/security/app-blacklist')) });
  const add = useSave(form, {
    save: (v) => call(api.POST('/api/managers/security/app-blacklist', { body: { packageId: v.packageId.trim() } })),
    invalidates: [['blacklist']],
    onSaved: () => form.resetFields(),
  });
  const remove = (packageId: string) =>
    void change(() => call(api.DELETE('/api/managers/security/app-blacklist/{packageId}', { params: { path: { packageId } } })), t('state.deleted'));
  return (
    <Card title={t('blacklist.title')}>
      <Form form={form} layout="inline" name="blacklist" onFinish={add.submit} className="mgr-filters">
        <Form.Item name="packageId" label={t('blacklist.packageId')} rules={[{ required: true, message: t('workers.required') }, { pattern: PACKAGE_ID, max: 255, message: t('blacklist.rule') }]}>
          <Input placeholder="com.example.fakegps" style={{ width: 320 }} />
        </Form.Item>
        <Button type="primary" htmlType="submit" loading={add.isPending}>{t('blacklist.add')}</Button>
      </Form>
      <QueryDataList
        query={list}
        empty={t('blacklist.none')}
        rowKey="packageId"
        aria-label={t('nav.blacklist')}
        dataSource={(list.data ?? []).map((packageId) => ({ packageId }))}
        pagination={{ pageSize: 50, hideOnSinglePage: true }}
        columns={[
          { title: t('blacklist.packageId'), key: 'p', render: (_, { packageId: p }) => <Typography.Text code>{p}</Typography.Text> },
          {
            title: '', key: 'a', width: 120,
            render: (_, { packageId: p }) => (
              <Space>
                <Popconfirm title={t('blacklist.removeConfirm')} onConfirm={() => remove(p)} okText={t('action.delete')} cancelText={t('action.cancel')}>
                  <Button type="link" danger aria-label={`${t('action.delete')} ${p}`}>{t('action.delete')}</Button>
                </Popconfirm>
              </Space>
            ),
          },
        ]}
      />
    </Card>
  );
}
