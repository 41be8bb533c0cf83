// Shared states and messages: a failed query with its server message and a retry, and the
// toast that follows an action (its success, or the server's refusal in the current language).
import { App, Button, Result } from 'antd';
import { useCallback } from 'react';
import { useTranslation } from 'react-i18next';
import { ApiError } from '../api/errors.ts';

/**
 * A refusal's message for a person: a validation refusal about the meaning of a value (a wrong
 * authenticator code) without the generic "Parameter validation failed:" in front; one about a
 * request field keeps it (`body.amount must be ≥ 0` alone says less).
 */
export function plainMessage(err: ApiError): string {
  if (err.code !== 30001) return err.message;
  const m = /^[^:：]{1,40}[:：]\s*(.+)$/s.exec(err.message);
  return m && !/^(body|querystring|params)\./.test(m[1]!) ? m[1]! : err.message;
}

export function messageOf(err: unknown, t: (key: string) => string): string {
  if (err instanceof ApiError) return err.status === 0 ? t('error.network') : plainMessage(err);
  return err instanceof Error ? err.message : String(err);
}

export function QueryError({ error, onRetry }: { error: unknown; onRetry?: () => void }) {
  const { t } = useTranslation();
  const forbidden = error instanceof ApiError && error.status === 403;
  return (
    <Result
      status={forbidden ? '403' : 'error'}
      title={forbidden ? t('error.forbidden') : t('state.error')}
      subTitle={messageOf(error, t)}
      extra={onRetry && !forbidden ? <Button onClick={onRetry}>{t('action.retry')}</Button> : undefined}
    />
  );
}

/** `run(action)`: shows the outcome of an action as a message; resolves true when it succeeded. */
export function useAction() {
  const { message } = App.useApp();
  const { t } = useTranslation();
  return useCallback(async (action: () => Promise<unknown>, success = t('state.done')): Promise<boolean> => {
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

/** Puts a validation error from the server next to the field it names, if the form has it. */
export function fieldErrors(err: unknown, fields: readonly string[]): { name: string; errors: string[] }[] {
  if (!(err instanceof ApiError) || !err.field) return [];
  const name = err.field.split('.')[0]!;
  return fields.includes(name) ? [{ name, errors: [err.message] }] : [];
}
