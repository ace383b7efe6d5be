import * as yup from 'yup';

/** The `prometheus-sd` section. */
export const prometheusSdSchema = yup.object({
  /**
   * Metadata keys passed on as `__meta_vigil_metadata_<key>` labels (`tags.<key>` for a tag as
   * `__meta_vigil_tag_<key>`). None by default: whoever may read the targets (the `metrics` role)
   * must not read through them what only `/instances` shows.
   */
  'metadata-labels': yup.array(yup.string().trim().min(1).required()).typeError('${path} must be a list of metadata keys').default([]),
}).exact('unknown key(s): ${properties}').typeError('must be a mapping of keys to values').default({});

export type PrometheusSdConfig = yup.InferType<typeof prometheusSdSchema>;
