import { formatValue } from '../format';

/** Used of committed of max, as one bar: what people read off a memory pool at a glance. */
export function Meter({ label, used, committed, max, unit = 'bytes' }: { label: string; used: number; committed?: number; max?: number; unit?: string }) {
  const scale = max && max > 0 ? max : committed && committed > 0 ? committed : Math.max(used, 1);
  const percent = (value: number) => `${Math.min(100, (value / scale) * 100).toFixed(2)}%`;
  const share = Math.round((used / scale) * 100);
  return (
    <div class="meter" role="meter" aria-label={label} aria-valuemin={0} aria-valuemax={scale} aria-valuenow={used}>
      <div class="meter-label"><span>{label}</span><span class="muted">{formatValue(used, unit)}{max && max > 0 ? ` of ${formatValue(max, unit)} (${share}%)` : committed ? ` of ${formatValue(committed, unit)} committed` : ''}</span></div>
      <div class={`meter-bar${share >= 90 ? ' high' : ''}`}>
        {committed !== undefined && committed > 0 && <span class="meter-committed" style={{ width: percent(committed) }} />}
        <span class="meter-used" style={{ width: percent(used) }} />
      </div>
    </div>
  );
}
