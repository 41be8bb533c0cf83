// What the administrator record (admins feature) and the signed-in profile (auth feature)
// share: who an administrator is, and the password rule of every form that sets one.
import { Type } from 'typebox';

export const PASSWORD_RULE = { minLength: 8, maxLength: 128, description: '8 to 128 characters' };

/** Who an administrator is: shared by the administrator record and the profile (/info). */
export const AdminIdentityFields = {
  id: Type.Integer(),
  username: Type.String(),
  nickname: Type.String(),
  email: Type.String(),
  phone: Type.String(),
  avatar: Type.String(),
  department_id: Type.Union([Type.Integer(), Type.Null()]),
  department: Type.Union([Type.Object({ id: Type.Integer(), name: Type.String({ description: 'in the reader’s language (Accept-Language)' }) }), Type.Null()]),
  roles: Type.Array(Type.Object({ id: Type.Integer(), name: Type.String({ description: 'in the reader’s language (Accept-Language)' }), slug: Type.String() })),
};
