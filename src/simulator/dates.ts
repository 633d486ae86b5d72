/** Java's `Date.toString()` rendered in UTC, e.g. "Wed Jul 10 06:12:47 UTC 2024" (4.1 `expiration`). */
export function javaDateString(epochSeconds: number): string {
  const d = new Date(epochSeconds * 1000);
  const days = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
  const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
  const two = (n: number) => String(n).padStart(2, '0');
  const time = `${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())}`;
  return `${days[d.getUTCDay()]} ${months[d.getUTCMonth()]} ${two(d.getUTCDate())} ${time} UTC ${d.getUTCFullYear()}`;
}

/** "YYYY-MM-DD HH:MM:SS" in UTC, the form of SHOW SECRET's `expire at:`. */
export function gsqlDateString(epochSeconds: number): string {
  return new Date(epochSeconds * 1000).toISOString().slice(0, 19).replace('T', ' ');
}
