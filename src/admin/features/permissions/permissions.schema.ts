import { Type } from 'typebox';
import { Nullable, OrderByQuery, PagingQuery } from '../../../platform/http/schemas.ts';
import { Body, Envelope, ListEnvelope } from '../../http.ts';

export const PERMISSION_ORDER_FIELDS = ['id', 'name', 'slug', 'method', 'path', 'menu_id', 'status', 'created_at', 'updated_at'] as const;
export type PermissionOrderField = (typeof PERMISSION_ORDER_FIELDS)[number];

export const PERMISSION_METHODS = ['GET', 'POST', 'PUT', 'DELETE'] as const;

const Id = (description?: string) => Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER, ...(description ? { description } : {}) });
const Status = Type.Integer({ minimum: 0, maximum: 1, description: '1 enabled, 0 disabled' });

export const PermissionQuery = Type.Object({
  ...PagingQuery,
  name: Type.Optional(Type.String({ maxLength: 128, description: 'fuzzy, over the name' })),
  slug: Type.Optional(Type.String({ maxLength: 128, description: 'fuzzy, over the slug' })),
  method: Type.Optional(Type.String({ enum: [...PERMISSION_METHODS] })),
  status: Type.Optional(Status),
  menu_id: Type.Optional(Id('permissions linked to this menu')),
  order_by: Type.Optional(OrderByQuery(PERMISSION_ORDER_FIELDS, 'id:desc')),
});

const Name = Type.String({ minLength: 1, maxLength: 128, pattern: '\\S' });
export const PERMISSION_SLUG = Type.String({
  minLength: 3,
  maxLength: 128,
  pattern: '^[a-z][a-z0-9_-]*\\.[a-z][a-z0-9_.-]*$',
  description: '`<module>.<action>`, lower case; unique',
});
const Method = Type.String({ enum: [...PERMISSION_METHODS, ''], description: 'HTTP method of the route it stands for; empty for none' });
const Path = Type.String({ maxLength: 255, pattern: '^(/.*)?$', description: 'path of the route it stands for (starts with /); empty for none' });
const MenuId = Nullable(Id('menu this permission belongs to; null for none'));

export const CreatePermissionBody = Body({
  name: Name,
  slug: PERMISSION_SLUG,
  method: Type.Optional(Method),
  path: Type.Optional(Path),
  menu_id: Type.Optional(MenuId),
  status: Type.Optional(Status),
});

/** Every field of the create body, optional: only the fields sent change. */
export const UpdatePermissionBody = Body(Type.Partial(CreatePermissionBody).properties);

export const PermissionRecord = Type.Object({
  id: Type.Integer(),
  name: Type.String({ description: 'the stored, editable name (system permissions start with their route’s English summary)' }),
  label: Type.String({
    description: 'the name to show, in the reader’s language (Accept-Language): for a system permission whose name was not edited, the catalogue’s name of its slug (`attachment.view` → "View and download everyone’s files" / "查看和下载所有人的文件"); otherwise `name`',
  }),
  slug: Type.String(),
  method: Type.String(),
  path: Type.String(),
  menu_id: Nullable(Type.Integer()),
  menu_title: Nullable(Type.String(), { description: 'that menu’s title in the reader’s language (Accept-Language); null when menu_id is null' }),
  status: Type.Integer(),
  is_system: Type.Boolean({ description: 'generated from the route table: cannot be deleted, slug/method/path fixed' }),
  created_at: Type.String({ description: 'YYYY-MM-DD HH:mm:ss' }),
  updated_at: Type.String({ description: 'YYYY-MM-DD HH:mm:ss' }),
});

export const PermissionReply = Envelope(PermissionRecord);
export const PermissionList = ListEnvelope(PermissionRecord);
export const DeletedReply = Envelope(Type.Object({ id: Type.Integer() }));
