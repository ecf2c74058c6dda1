// The daemon the feed tests start: two users and an operator (bearer tokens), no preflight, the scripted model.
export const TOKENS = {
  ALICE_TOKEN: 'alice-token-0123456789abcdef012345678',
  BOB_TOKEN: 'bob-token-0123456789abcdef0123456789ab',
  OPERATOR_TOKEN: 'op-token-0123456789abcdef0123456789',
};

/** The config YAML; `intelligence` lines (a budget) go after the model's endpoint. */
export const feedConfig = (model: string, intelligence: string[] = []): string =>
  [
    'a2a:',
    '  listen: http://127.0.0.1:0',
    '  principals:',
    '    - {id: alice, role: user, match: {bearer: "{{secret:ALICE_TOKEN}}"}}',
    '    - {id: bob, role: user, match: {bearer: "{{secret:BOB_TOKEN}}"}}',
    '    - {id: root, role: operator, match: {bearer: "{{secret:OPERATOR_TOKEN}}"}}',
    'agent:',
    '  preflight: never',
    'intelligence:',
    `  endpoints: ${model}`,
    ...intelligence,
    '',
  ].join('\n');
