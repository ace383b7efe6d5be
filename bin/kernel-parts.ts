import type { KernelConfig } from '../config/kernel-schema.js';
import { OutboundPolicy, type InstanceAuthSettings } from '../core/kits/outbound/index.js';
import { replaceableJsonViews } from '../core/kits/views/index.js';
import { accessDecisionPoint } from '../core/kits/access/index.js';
import { httpEdge } from '../core/kits/http-edge/index.js';
import type { KernelParts } from '../core/kernel.js';

/** The parts of the kernel that live outside core/, as the daemon and `vigil/testing` build them. */
export const KERNEL_PARTS: KernelParts = {
  outbound: (settings, userAgent) => new OutboundPolicy({ ssrf: settings['ssrf-protection'], instanceAuth: instanceAuthOf(settings), userAgent }),
  views: replaceableJsonViews,
  access: accessDecisionPoint,
  httpEdge,
};

function instanceAuthOf(settings: KernelConfig): InstanceAuthSettings {
  const auth = settings['instance-auth'];
  return {
    enabled: auth.enabled,
    defaultUserName: auth['default-user-name'] ?? null,
    defaultPassword: auth['default-password'] ?? null,
    serviceMap: Object.fromEntries(Object.entries(auth['service-map'] as Record<string, Record<string, string | null>>)
      .map(([name, entry]) => [name, { userName: entry['user-name'] ?? null, userPassword: entry['user-password'] ?? null }])),
  };
}
