import * as yup from 'yup';
import { duration } from '../../../core/plugin-api.js';

const unknownKeys = '${path} has unknown key(s): ${properties}';

/** One entry of `notify.expectations`, as validated (`for` in ms). */
export interface ExpectationConfig {
  readonly applications: string[];
  readonly 'min-up': number;
  readonly for: number;
}

/**
 * A fleet expectation: every application whose name matches one of `applications` (globs) should
 * have at least `min-up` instances UP; when it has fewer for `for`, channels hear
 * `APPLICATION_DEGRADED`, and `APPLICATION_RECOVERED` once it holds again. `for` rides out a
 * rolling deployment (one minute by default).
 */
export const expectationSchema = yup.object({
  applications: yup.array(yup.string().required().min(1, '${path} must not be empty')).required('${path} is required').min(1, '${path} must name at least one application (a glob such as "payments-*")'),
  'min-up': yup.number().typeError('${path} must be a whole number').integer('${path} must be a whole number').min(1, '${path} must be at least 1').default(1),
  for: duration().min(0).default(60_000),
}).exact(unknownKeys);

export const expectationsSchema = yup.array(expectationSchema.required()).default([]);
