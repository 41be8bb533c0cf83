import { Type } from 'typebox';
import { PagingQuery } from '../../../platform/http/schemas.ts';
import { Body, Envelope, ListEnvelope } from '../../http.ts';

export const OnlineQuery = Type.Object({
  ...PagingQuery,
  username: Type.Optional(Type.String({ maxLength: 64, description: 'fuzzy, over username and nickname' })),
  ip: Type.Optional(Type.String({ maxLength: 64, description: 'fuzzy' })),
});

export const OnlineSession = Type.Object({
  token_id: Type.Integer(),
  admin_id: Type.Integer(),
  username: Type.String(),
  nickname: Type.String(),
  ip: Type.String(),
  user_agent: Type.String(),
  login_at: Type.String({ description: 'YYYY-MM-DD HH:mm:ss' }),
  last_active_at: Type.String({ description: 'YYYY-MM-DD HH:mm:ss' }),
  expires_at: Type.String({ description: 'YYYY-MM-DD HH:mm:ss' }),
  is_current: Type.Boolean({ description: 'the caller’s own session' }),
});

export const OnlineList = ListEnvelope(OnlineSession);

export const TokenIdParam = Type.Object({ token_id: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }) });

export const BatchKickBody = Body({
  token_ids: Type.Array(Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }), { minItems: 1, maxItems: 100, uniqueItems: true }),
});

export const KickReply = Envelope(
  Type.Object({
    kicked: Type.Array(Type.Integer(), { description: 'sessions ended by this call' }),
    not_found: Type.Array(Type.Integer(), { description: 'ids that were not live sessions' }),
  }),
);
