// Sign-in: username, password and the captcha picture (click for another); a second step asks
// for the authenticator code when the account has one, or one of its recovery codes instead
// (sent in the same field, `google_code`). Every refusal is the server's own
// message in the chosen language (wrong password, lockout, disabled account, wrong captcha,
// too many attempts); a session that ended elsewhere is explained here too.
import { KeyOutlined, LockOutlined, SafetyOutlined, UserOutlined } from '@ant-design/icons';
import { useMutation, useQuery } from '@tanstack/react-query';
import { Alert, Button, Form, Input, Spin } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Navigate, useSearchParams } from 'react-router';
import { api, unwrap } from '../api/client.ts';
import { ApiError } from '../api/errors.ts';
import { endReason } from '../api/session.ts';
import { LanguageSwitch } from '../layout/LanguageSwitch.tsx';
import { useAuth } from './auth.tsx';

interface Values {
  username: string;
  password: string;
  captcha_code?: string;
  google_code?: string;
}

const AUTHENTICATOR_NEEDED = 10008;
/** A recovery code as typed: ten letters and digits, in two groups of five (case, spaces, hyphen as one likes). */
const RECOVERY_CODE = /^\s*[a-z0-9]{5}[\s-]*[a-z0-9]{5}\s*$/i;
export default function SignIn() {
  const { t } = useTranslation();
  const { session, restoring, signIn } = useAuth();
  const [params] = useSearchParams();
  const [form] = Form.useForm<Values>();
  const [error, setError] = useState<ApiError | null>(null);
  const [secondStep, setSecondStep] = useState(false);
  // The second step asks for a recovery code instead of the app's code.
  const [recovery, setRecovery] = useState(false);
  const [ended] = useState(endReason);
  const captcha = useQuery({ queryKey: ['captcha'], queryFn: () => unwrap(api.GET('/api/admin/captcha')), staleTime: Infinity, gcTime: 0, enabled: !restoring && !session });
  // The server may run without captchas (CAPTCHA_ENABLED=false): then none is asked for or sent.
  const captchaOn = captcha.data?.enabled !== false;
  const newCaptcha = () => {
    if (!captchaOn) return;
    form.setFieldValue('captcha_code', '');
    void captcha.refetch();
  };
  const login = useMutation({
    mutationFn: (values: Values) => unwrap(api.POST('/api/admin/login', {
      body: {
        username: values.username,
        password: values.password,
        ...(captchaOn ? { captcha_id: captcha.data?.captcha_id, captcha_code: values.captcha_code } : {}),
        ...(secondStep && values.google_code ? { google_code: values.google_code } : {}),
      },
    })),
    onMutate: () => setError(null),
    onSuccess: (token) => signIn(token),
    onError: (err) => {
      const e = err instanceof ApiError ? err : new ApiError(0, 0, String(err));
      // The authenticator step: asked for, or the code was wrong (the server says which).
      if (e.code === AUTHENTICATOR_NEEDED && !secondStep) setSecondStep(true);
      else setError(e);
      // A captcha answer is good for one attempt.
      newCaptcha();
    },
  });
  const busy = login.isPending;
  const next = params.get('next') ?? '/';
  if (session) return <Navigate to={next.startsWith('/') ? next : '/'} replace />;
  // A reload of the sign-in page while the refresh cookie is tried.
  if (restoring) return <Spin fullscreen />;

  return (
    <div className="sign-in">
      <main className="sign-in-card">
        <header className="sign-in-head">
          <h1>{t('signIn.title')}</h1>
          <LanguageSwitch />
        </header>
        {ended && !error && !secondStep && <Alert className="sign-in-alert" type="info" showIcon message={t(`session.${ended}`)} />}
        {error && (
          <Alert
            className="sign-in-alert"
            type="error"
            showIcon
            role="alert"
            message={error.status === 0 ? t('error.network') : error.message}
            description={error.status >= 500 && error.traceId ? t('error.traceId', { id: error.traceId }) : undefined}
          />
        )}
        <Form<Values> form={form} layout="vertical" onFinish={(v) => login.mutate(v)} requiredMark={false} disabled={busy}>
          <div hidden={secondStep}>
            <Form.Item name="username" label={t('signIn.username')} rules={[{ required: true, message: t('signIn.required') }]}>
              <Input prefix={<UserOutlined />} autoComplete="username" autoFocus />
            </Form.Item>
            <Form.Item name="password" label={t('signIn.password')} rules={[{ required: true, message: t('signIn.required') }]}>
              <Input.Password prefix={<LockOutlined />} autoComplete="current-password" />
            </Form.Item>
          </div>
          {secondStep && !recovery && (
            <>
              <p className="sign-in-hint">{t('signIn.authenticatorHint')}</p>
              <Form.Item name="google_code" label={t('signIn.authenticator')} rules={[{ required: true, pattern: /^\d{6}$/, message: t('signIn.codeFormat') }]}>
                <Input prefix={<SafetyOutlined />} inputMode="numeric" autoComplete="one-time-code" maxLength={6} autoFocus />
              </Form.Item>
            </>
          )}
          {secondStep && recovery && (
            <>
              <p className="sign-in-hint">{t('signIn.recoveryHint')}</p>
              <Form.Item name="google_code" label={t('signIn.recovery')} rules={[{ required: true, pattern: RECOVERY_CODE, message: t('signIn.recoveryFormat') }]}>
                <Input prefix={<KeyOutlined />} autoComplete="off" autoCapitalize="none" spellCheck={false} maxLength={20} placeholder="xxxxx-xxxxx" autoFocus />
              </Form.Item>
            </>
          )}
          {captchaOn && (
          <Form.Item label={t('signIn.captcha')} required>
            {/* The picture at its own size (never scaled down: its glyphs are drawn to be read at it). */}
            <div className="captcha-row">
              <Form.Item name="captcha_code" noStyle rules={[{ required: true, message: t('signIn.required') }]}>
                <Input aria-label={t('signIn.captcha')} autoComplete="off" maxLength={16} />
              </Form.Item>
              <button type="button" className="captcha" onClick={newCaptcha} title={t('signIn.captchaHint')} aria-label={t('signIn.captchaHint')}>
                {captcha.data ? <img src={captcha.data.captcha_image} width={captcha.data.width} height={captcha.data.height} style={{ width: captcha.data.width, height: captcha.data.height }} alt={t('signIn.captcha')} /> : null}
              </button>
            </div>
          </Form.Item>
          )}
          <Button type="primary" htmlType="submit" block loading={busy}>{t('signIn.submit')}</Button>
          {secondStep && (
            <>
              <Button type="link" block onClick={() => { setRecovery(!recovery); form.setFieldValue('google_code', ''); setError(null); }}>
                {recovery ? t('signIn.useAuthenticator') : t('signIn.useRecovery')}
              </Button>
              <Button type="link" block onClick={() => { setSecondStep(false); setRecovery(false); setError(null); }}>{t('signIn.back')}</Button>
            </>
          )}
        </Form>
      </main>
    </div>
  );
}
