// The Status filter of a list whose rows are enabled (1) or disabled (0).
import type { TFunction } from 'i18next';

export const statusFilter = (t: TFunction) => ({
  kind: 'select' as const,
  key: 'status' as const,
  width: 110,
  options: [{ value: 1, label: t('common:field.enabled') }, { value: 0, label: t('common:field.disabled') }],
});
