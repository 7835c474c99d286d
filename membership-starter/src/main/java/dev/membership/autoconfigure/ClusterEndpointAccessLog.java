package dev.membership.autoconfigure;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.EndpointAccessResolver;
import org.springframework.boot.actuate.endpoint.EndpointId;
import org.springframework.util.ClassUtils;

import dev.membership.actuate.ClusterEndpoint;

/**
 * Says once, as the application starts, whether {@code /actuator/cluster}'s write
 * operations are open, how to open them, and that they need authentication: closed by
 * default (read-only access), as Spring Boot's disruptive endpoints are.
 */
class ClusterEndpointAccessLog implements SmartInitializingSingleton {

	private static final Logger log = LoggerFactory.getLogger(ClusterEndpointAccessLog.class);

	private static final String WRITES = String.join(", ", ClusterEndpoint.ACTIONS);

	private static final String SECURITY = "org.springframework.security.core.Authentication";

	private final @Nullable EndpointAccessResolver access;

	ClusterEndpointAccessLog(@Nullable EndpointAccessResolver access) {
		this.access = access;
	}

	@Override
	public void afterSingletonsInstantiated() {
		Access access = (this.access != null) ? this.access.accessFor(EndpointId.of("cluster"), Access.READ_ONLY)
				: Access.READ_ONLY;
		if (access == Access.READ_ONLY) {
			log.info("/actuator/cluster answers reads; its write operations ({}) are closed. To steer the cluster "
					+ "over HTTP, put them behind authentication (Spring Security) and open them with "
					+ "management.endpoint.cluster.access=unrestricted", WRITES);
		}
		else if (access == Access.UNRESTRICTED && !ClassUtils.isPresent(SECURITY, getClass().getClassLoader())) {
			log.warn("/actuator/cluster's write operations ({}) are open to anyone who reaches this port: "
					+ "management.endpoint.cluster.access is unrestricted and Spring Security is not on the "
					+ "classpath. Each is recorded as 'anonymous' with the caller's address; put them behind "
					+ "authentication, or set management.endpoint.cluster.access=read-only", WRITES);
		}
		else if (access == Access.UNRESTRICTED) {
			log.info("/actuator/cluster's write operations ({}) are open to the callers your security configuration "
					+ "lets through; each is recorded with its principal and address", WRITES);
		}
	}

}
