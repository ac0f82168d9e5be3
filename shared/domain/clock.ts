/** The one source of "now". Tests move time by setting `clock.now`; production never touches it. */
export const clock = {
  now: (): number => Date.now(),
};

export const isoNow = (): string => new Date(clock.now()).toISOString();
