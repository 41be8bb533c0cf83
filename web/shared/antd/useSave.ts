// The form hook: an antd Form whose values are a request body (its generated type), saved through
// TanStack Query's useMutation. The button's loading is the mutation's `isPending`; a refusal is
// said in a toast and, when it names a field the form shows, next to that field (its typed key),
// otherwise in `refusal` (for FormModal's `refusal`: shown in the form, above its fields); a
// success says so and invalidates the lists it changes.
import { useMutation, useQueryClient, type QueryKey } from '@tanstack/react-query';
import { App, type FormInstance } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { fieldErrorsOf, messageOf } from '../feedback.ts';

export interface SaveOptions<V, R> {
  save: (values: V) => Promise<R>;
  /** The queries the change makes stale (their keys' prefixes). */
  invalidates?: readonly QueryKey[];
  /** The toast on success (default: "Saved"; false: none). */
  success?: string | false;
  /** The field a refused value (400) that names none is about. */
  fallback?: keyof V & string;
  /**
   * The fields a refusal is about, before the usual mapping (the error's field, by its first
   * segment): a body field the form shows as another (a fence drawn as points), a message that
   * says which, a code that means one, a path into a list (`['products', 0, 'price']`). The text
   * is the refusal's message unless given. Nothing returned: the usual mapping.
   */
  fieldsOf?: (err: unknown, values: V) => { name: (keyof V & string) | [keyof V & string, ...(string | number)[]]; errors?: string[] }[];
  onSaved?: (reply: R, values: V) => void;
  /** After a refusal was placed next to fields (to show them: the tab they are on, say). */
  onFieldErrors?: (fields: (keyof V & string)[]) => void;
}

export function useSave<V, R = unknown>(form: FormInstance<V>, options: SaveOptions<V, R>) {
  const { message } = App.useApp();
  const { t } = useTranslation();
  const client = useQueryClient();
  // The last refusal no field took (a 403 about the whole request, say), until the next save.
  const [refusal, setRefusal] = useState<string>();
  const mutation = useMutation({
    mutationFn: options.save,
    onMutate: () => setRefusal(undefined),
    onSuccess: (reply, values) => {
      if (options.success !== false) void message.success(options.success ?? t('kit:state.saved'));
      for (const queryKey of options.invalidates ?? []) void client.invalidateQueries({ queryKey });
      options.onSaved?.(reply, values);
    },
    onError: (err, values) => {
      // The fields this form shows (registered with the form), typed as the body's keys.
      const shown = form.getFieldsError().map((f) => f.name[0]).filter((n): n is keyof V & string => typeof n === 'string');
      const text = messageOf(err, t);
      let placed: { name: (keyof V & string) | (string | number)[]; errors: string[] }[] = (options.fieldsOf?.(err, values) ?? [])
        .filter((f) => shown.includes(Array.isArray(f.name) ? f.name[0] : f.name))
        .map((f) => ({ name: f.name, errors: f.errors ?? [text] }));
      if (placed.length === 0) placed = fieldErrorsOf(err, shown, t, options.fallback);
      void message.error(text);
      if (placed.length > 0) {
        form.setFields(placed as Parameters<typeof form.setFields>[0]);
        options.onFieldErrors?.(placed.map((f) => (Array.isArray(f.name) ? f.name[0] : f.name) as keyof V & string));
      } else {
        setRefusal(text);
      }
    },
  });
  return {
    submit: (values: V) => mutation.mutate(values),
    isPending: mutation.isPending,
    /** The last refusal that names no field of the form, in words (undefined once a save starts again). */
    refusal,
    mutation,
  };
}

/** A Switch for a 1/0 field (status): checked is 1. */
export const switchOneZero = {
  valuePropName: 'checked',
  getValueProps: (value: unknown) => ({ checked: value !== 0 }),
  normalize: (checked: boolean) => (checked ? 1 : 0),
};
