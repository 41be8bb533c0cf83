// The binding step: a role of the account requires an authenticator and none is bound, so the
// session that sign-in opened is good only for binding one (the server refuses everything else,
// 403 10011). The person binds an app, saves the recovery codes shown once, and goes on into the
// console with the same session; or signs out.
import { Alert, Button } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { AuthenticatorSetup } from '../components/AuthenticatorSetup.tsx';
import { RecoveryCodes } from '../components/RecoveryCodes.tsx';
import { LanguageSwitch } from '../layout/LanguageSwitch.tsx';
import { useAuth } from './auth.tsx';

export default function BindAuthenticator() {
  const { t } = useTranslation();
  const { finishBinding, signOut } = useAuth();
  const [codes, setCodes] = useState<string[] | null>(null);
  return (
    <div className="sign-in">
      <main className="sign-in-card bind-card">
        <header className="sign-in-head">
          <h1>{t('bindStep.title')}</h1>
          <LanguageSwitch />
        </header>
        {codes ? (
          <RecoveryCodes codes={codes} doneText={t('bindStep.continue')} onDone={finishBinding} />
        ) : (
          <>
            <Alert className="sign-in-alert" type="info" showIcon title={t('bindStep.required')} description={t('bindStep.how')} />
            <AuthenticatorSetup onBound={setCodes} success={t('bindStep.bound')} />
            <div style={{ marginTop: 16 }}>
              <Button type="link" style={{ paddingInline: 0 }} onClick={() => void signOut()}>{t('action.signOut')}</Button>
            </div>
          </>
        )}
      </main>
    </div>
  );
}
