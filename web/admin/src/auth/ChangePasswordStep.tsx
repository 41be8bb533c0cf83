// The new-password step: someone else set the account's password (an administrator, the
// reset-password command, the first start's generated one) or it expired, so the session that
// sign-in opened is good only for choosing a new one (the server refuses everything else, 403
// 10012). The person chooses one and goes on with the same session (to the binding step when a
// role requires an authenticator); or signs out.
import { Alert, Button } from 'antd';
import { useTranslation } from 'react-i18next';
import { ChangePassword } from '../components/ChangePassword.tsx';
import { LanguageSwitch } from '../layout/LanguageSwitch.tsx';
import { useAuth } from './auth.tsx';

export default function ChangePasswordStep() {
  const { t } = useTranslation();
  const { finishPasswordChange, signOut } = useAuth();
  return (
    <div className="sign-in">
      <main className="sign-in-card bind-card">
        <header className="sign-in-head">
          <h1>{t('passwordStep.title')}</h1>
          <LanguageSwitch />
        </header>
        <Alert className="sign-in-alert" type="info" showIcon title={t('passwordStep.required')} description={t('passwordStep.how')} />
        <ChangePassword onChanged={finishPasswordChange} />
        <div style={{ marginTop: 16 }}>
          <Button type="link" style={{ paddingInline: 0 }} onClick={() => void signOut()}>{t('action.signOut')}</Button>
        </div>
      </main>
    </div>
  );
}
