// How payment methods look in replies: their config with its secrets masked.
import { displayStamps } from '../../../platform/time.ts';
import type { PaymentMethodRow } from '../../db/schema.ts';
import { maskConfig } from './payment-methods.secrets.ts';

export function renderPaymentMethod(r: PaymentMethodRow, tz: string) {
  return {
    id: r.id,
    name: r.name,
    code: r.code,
    type: r.type,
    config: maskConfig(r.config) as Record<string, unknown>,
    is_active: r.isActive,
    sort: r.sort,
    description: r.description,
    ...displayStamps(r, tz),
  };
}
