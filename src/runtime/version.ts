// The package version, reported by `--version`, `--capabilities` and the agent card.
export const VERSION = '0.1.0';
