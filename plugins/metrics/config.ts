import * as yup from 'yup';

/** The `metrics` section. */
export const metricsSchema = yup.object({
  /** One `vigil_instance_up{application,instance_id}` series per registered instance (off: a large fleet makes many series). */
  'per-instance': yup.boolean().default(false),
}).exact('unknown key(s): ${properties}').typeError('must be a mapping of keys to values').default({});

export type MetricsConfig = yup.InferType<typeof metricsSchema>;
