// One address, no spaces, a dot in the domain: what the service accepts, without a long regex.
const EMAIL = /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/;

/** 'Must provide a valid email.' (the locale's `invalidEmail`) or undefined (spec §5); `allowEmpty` for mount and blur. */
export function validateEmail(value: string, message: string, allowEmpty = false): string | undefined {
  const v = value.trim();
  if (!v && allowEmpty) return undefined;
  return EMAIL.test(v) && v.length <= 254 ? undefined : message;
}
