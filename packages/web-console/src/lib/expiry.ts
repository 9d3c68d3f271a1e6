/** What "never" means for a CLI-access switch's expiry: the switch stays until someone changes it. */
export const SWITCH_NEVER = 'Never (until someone changes it)';
