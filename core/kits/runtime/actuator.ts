/**
 * The `Accept` Spring Boot Admin sends to an instance when its caller names none: the actuator's
 * media types, newest first, then plain JSON (reference §4.5). v1 is left out: Vigil converts
 * no legacy bodies. The monitor's checks, the index detection and the proxy all send it.
 */
export const ACTUATOR_ACCEPT = 'application/vnd.spring-boot.actuator.v3+json, application/vnd.spring-boot.actuator.v2+json, application/json';
