// The one error a configuration mistake raises, wherever the configuration was given (props at
// synth, flags, environment or config file at start-up): every problem, each naming its field.
export class ConfigError extends Error {
  readonly problems: string[];
  constructor(problems: string | readonly string[]) {
    super(typeof problems === 'string' ? problems : problems.join('; '));
    this.name = 'ConfigError';
    this.problems = typeof problems === 'string' ? [problems] : [...problems];
  }
}
