const time = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit' });
const dateTime = new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', second: '2-digit' });

/** An instant as local time; with the date when it is not today. The epoch (never) is a dash. */
export function formatInstant(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime()) || date.getTime() === 0) return '–';
  return date.toDateString() === new Date().toDateString() ? time.format(date) : dateTime.format(date);
}

/** A measurement with its unit, in the units people read (bytes as MiB, seconds as ms...). */
export function formatValue(value: number, unit: string | null | undefined): string {
  if (unit === 'bytes') {
    const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
    let scaled = value;
    let index = 0;
    while (Math.abs(scaled) >= 1024 && index < units.length - 1) {
      scaled /= 1024;
      index += 1;
    }
    return `${round(scaled)} ${units[index]}`;
  }
  if (unit === 'seconds' && Math.abs(value) < 1) return `${round(value * 1000)} ms`;
  return unit ? `${round(value)} ${unit}` : round(value);
}

function round(value: number): string {
  if (Number.isInteger(value)) return value.toLocaleString();
  return value.toLocaleString(undefined, { maximumFractionDigits: Math.abs(value) < 10 ? 3 : 1 });
}
