// Strings every screen shares. Screens keep their own in their folder (see addStrings).
export default {
  app: { title: 'Time clock', manager: 'Time clock — managers' },
  action: { signIn: 'Sign in', signOut: 'Sign out', retry: 'Try again', close: 'Close', language: '中文' },
  signIn: {
    title: 'Sign in', username: 'Username', password: 'Password', required: 'Required',
    deviceBound: 'This account is bound to another phone. Ask your manager to reset the device binding, then sign in here.',
    invalid: 'Wrong username or password.',
    disabled: 'This account is disabled. Ask your manager.',
    limited: 'Too many attempts. Try again in {{seconds}} s.',
    device: 'This device: {{id}}',
  },
  password: {
    title: 'Choose your own password',
    why: 'Hello {{name}}: your password was set by someone else, or it has expired. Choose a new one to go on; only you will know it.',
    current: 'Current password', new: 'New password', confirm: 'New password again', submit: 'Save my new password',
    required: 'Fill in the three fields.', mismatch: 'The two new passwords differ.', sameAsCurrent: 'It must differ from the current password.',
    wrongCurrent: 'The current password is wrong.',
    rulesTitle: 'The new password needs:',
    ruleLength: 'At least {{count}} characters.',
    ruleClasses: 'At least {{count}} of these 4 kinds of characters: lower-case letters, upper-case letters, digits, others (symbols, spaces).',
    ruleCommon: 'Not to be one of the 10,000 most common passwords.',
    ruleUsername: 'Not to contain your username.',
    ruleHistory: 'To differ from your last {{count}} passwords.',
  },
  session: {
    expired: 'Your session expired. Please sign in again.',
    revoked: 'Your session was ended. Please sign in again.',
    'signed-out': 'You have signed out.',
  },
  error: {
    network: 'No connection to the server. Check the network and try again.',
    unavailable: 'The service is temporarily unavailable. Try again in a moment.',
    unknown: 'Something went wrong ({{code}}).',
  },
  offline: 'Offline',
};
