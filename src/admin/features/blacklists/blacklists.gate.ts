// Refuses blacklisted client addresses on every admin request (registered before the routes,
// so its hook runs first on every admin route, /login and /captcha included, and on unknown
// admin paths): 403 with code 20003, and a warning in the request's log naming the address,
// the rule and the path. The client address is request.ip: the socket's, unless TRUST_PROXY
// names the proxy it came through (then the X-Forwarded-For entry that proxy added).
import fp from 'fastify-plugin';
import { AppError } from '../../../platform/http/errors.ts';
import type { FeatureOptions } from '../../context.ts';
import { E } from '../../errors.ts';
import { msg } from '../../../platform/i18n.ts';

export const blacklistGate = fp<FeatureOptions>(async (app, { ctx }) => {
  const service = ctx.blacklists;

  app.addHook('onRequest', (request, _reply, done) => {
    const ip = request.ip;
    const rule = service.match(ip);
    if (!rule) {
      done();
      return;
    }
    const path = request.url.split('?')[0];
    request.log.warn({ ip, rule: rule.ip, rule_id: rule.id, path, method: request.method }, 'request refused by the IP blacklist');
    done(new AppError(E.ACCESS_DENIED, { detail: msg('admin.blacklists.addressBlocked', { ip }) }));
  });

  app.addHook('onReady', async () => service.start());
  app.addHook('onClose', async () => service.stop());
}, { name: 'admin-blacklist-gate' });
