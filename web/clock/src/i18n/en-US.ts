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
