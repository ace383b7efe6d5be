/** The channel plugin a target belongs to: `notify-slack` for `notify-slack:payments` and for `notify-slack`. */
export function channelOf(target: string): string {
  const colon = target.indexOf(':');
  return colon < 0 ? target : target.slice(0, colon);
}
