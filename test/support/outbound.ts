import { OutboundPolicy, type InstanceAuthSettings, type SsrfSettings } from '../../core/kits/outbound/index.js';

export const TEST_USER_AGENT = 'Vigil/test (node test-node)';

/** The kernel's outbound policy for unit tests that build a client or proxy runtime by hand. */
export function testOutbound(options: { instanceAuth?: Partial<InstanceAuthSettings>; ssrf?: Partial<SsrfSettings> } = {}): OutboundPolicy {
  return new OutboundPolicy({
    ssrf: { enabled: false, 'allowed-cidrs': [], 'allowed-schemes': ['http', 'https'], ...options.ssrf },
    instanceAuth: { enabled: true, defaultUserName: null, defaultPassword: null, serviceMap: {}, ...options.instanceAuth },
    userAgent: () => TEST_USER_AGENT,
  });
}
