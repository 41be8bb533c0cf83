// Strings every screen shares. Screens keep their own in their folder (see addStrings).
export default {
  app: { title: 'Back office' },
  action: {
    search: 'Search', reset: 'Reset', create: 'Create', edit: 'Edit', delete: 'Delete', save: 'Save', cancel: 'Cancel',
    confirm: 'Confirm', refresh: 'Refresh', export: 'Export', import: 'Import', download: 'Download', view: 'View',
    enable: 'Enable', disable: 'Disable', back: 'Back', close: 'Close', retry: 'Retry', batchDelete: 'Delete selected',
    addChild: 'Add child', expandAll: 'Expand all', collapseAll: 'Collapse all',
    signOut: 'Sign out', profile: 'Profile', reload: 'Reload',
  },
  tree: { root: 'None (top level)' },
  state: {
    loading: 'Loading…', empty: 'Nothing here yet', emptyFiltered: 'Nothing matches these filters',
    error: 'This could not be loaded', saved: 'Saved', deleted: 'Deleted', done: 'Done',
    confirmDelete: 'Delete {{name}}? This cannot be undone.', confirmDeleteMany: 'Delete {{count}} selected items? This cannot be undone.', selected: '{{count}} selected',
    adminGone: 'Deleted administrator #{{id}}',
    capped: 'More than {{total}} match: narrow the filters to count them all',
  },
  field: {
    id: 'ID', status: 'Status', createdAt: 'Created', updatedAt: 'Updated', actions: 'Actions', sort: 'Sort', name: 'Name',
    description: 'Description', timeRange: 'Time range', enabled: 'Enabled', disabled: 'Disabled',
  },
  error: {
    screen: 'This screen could not be loaded. Check the connection, then reload the page.',
    network: 'The server cannot be reached. Check the connection and try again.',
    traceId: 'Trace ID: {{id}}',
    unavailable: 'The service is temporarily unavailable. Try again in a moment.',
    forbidden: 'You do not have permission to do this.',
    notFound: 'This page does not exist.',
  },
  session: {
    expired: 'Your session expired. Please sign in again.',
    revoked: 'Your session was ended (signed out elsewhere, kicked out, or the password changed). Please sign in again.',
    invalid: 'Please sign in.',
    'signed-out': 'You have signed out.',
  },
  signIn: {
    title: 'Sign in to the back office', username: 'Username', password: 'Password', captcha: 'Characters in the picture',
    captchaHint: 'Click the picture for another one', submit: 'Sign in', authenticator: 'Authenticator code',
    authenticatorHint: 'This account uses two-step verification: enter the 6-digit code from your authenticator app.',
    back: 'Use another account', required: 'Required', codeFormat: 'Six digits',
    recovery: 'Recovery code', recoveryHint: 'Enter one of the recovery codes you saved when you turned on the authenticator. Each code works once.',
    recoveryFormat: 'Ten letters and digits, as xxxxx-xxxxx', useRecovery: 'Lost your authenticator? Use a recovery code', useAuthenticator: 'Use the authenticator code',
  },
  bindStep: {
    title: 'Turn on two-step sign-in',
    required: 'A role of your account requires an authenticator app.',
    how: 'Bind one now (Google Authenticator, Microsoft Authenticator…) to go on: set it up, type the code it shows, then save your recovery codes.',
    bound: 'Authenticator turned on', continue: 'Continue to the back office',
  },
  passwordStep: {
    title: 'Choose your own password',
    required: 'Your password was set by someone else, or it has expired.',
    how: 'Choose a new one to go on: only you will know it.',
  },
  layout: {
    language: 'Language', theme: 'Theme', light: 'Light', dark: 'Dark', notifications: 'Notifications', home: 'Home', menu: 'Menu',
  },
  menu: {
    dashboard: 'Dashboard', system: 'System', admin: 'Administrators', role: 'Roles', menu: 'Menus', permission: 'Permissions',
    department: 'Departments', dictionary: 'Dictionaries', blacklist: 'IP blacklist', trade: 'Trade', order: 'Orders',
    'payment-method': 'Payment methods', payment: 'Payments', log: 'Logs', 'log-operation': 'Operation logs',
    'log-login': 'Login logs', 'log-system': 'System logs', monitor: 'Monitoring', online: 'Online administrators',
    'monitor-system': 'Server', attachment: 'Files', notification: 'Notifications', profile: 'Profile', 'password-policy': 'Password policy',
  },
  pending: { title: 'Not available yet', text: 'This screen is not part of this console yet.' },
  // A role's data scope and an administrator's (components/DataScope.tsx); a list says department_and_below in short.
  dataScope: {
    title: 'Data scope',
    all: 'All data', department_and_below: 'Their department and those below it', department: 'Their department only',
    departmentAndBelowShort: 'Their department and below',
    custom: 'Chosen departments', self: 'Only their own data',
    more: '{{count}} more: {{list}}', departments: '{{count}} departments', departments_one: '1 department',
  },
};
