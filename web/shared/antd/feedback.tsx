// The states every screen shows the same way: a failed query with its message and a retry, and
// the toast that follows an action (its success, or the refusal in the reader's language).
import { App, Button, Result } from 'antd';
import { useCallback } from 'react';
import { useTranslation } from 'react-i18next';
import i18n from '../i18n.ts';
import { ApiError } from '../api/errors.ts';
import { messageOf } from '../feedback.ts';

export function QueryError({ error, onRetry }: { error: unknown; onRetry?: () => void }) {
  const { t } = useTranslation();
  const forbidden = error instanceof ApiError && error.status === 403 && i18n.exists('kit:error.forbidden');
  return (
    <Result
      status={forbidden ? '403' : 'error'}
      title={forbidden ? t('kit:error.forbidden') : t('kit:state.error')}
      subTitle={messageOf(error, t)}
      extra={onRetry && !forbidden ? <Button onClick={onRetry}>{t('kit:action.retry')}</Button> : undefined}
    />
  );
}

/** `run(action)`: shows the outcome of an action as a message; resolves true when it succeeded. */
export function useAction() {
  const { message } = App.useApp();
  const { t } = useTranslation();
  return useCallback(async (action: () => Promise<unknown>, success = t('kit:state.done')): Promise<boolean> => {
    try {
      await action();
      void message.success(success);
      return true;
    } catch (err) {
      void message.error(messageOf(err, t));
      return false;
    }
  }, [message, t]);
}
