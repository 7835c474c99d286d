package dev.membership.actuate;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.actuate.endpoint.web.annotation.EndpointWebExtension;

/**
 * {@code /actuator/cluster} over HTTP: an operation the node refuses answers 400 with the reason in the body
 * ({@code {"error": "..."}}), so that an operator sees why without reading the node's log.
 */
@EndpointWebExtension(endpoint = ClusterEndpoint.class)
public class ClusterWebEndpointExtension {

	private final ClusterEndpoint endpoint;

	public ClusterWebEndpointExtension(ClusterEndpoint endpoint) {
		this.endpoint = endpoint;
	}

	/** As {@link ClusterEndpoint#resign}; a refusal is a 400 that says why. */
	@WriteOperation
	public WebEndpointResponse<Object> resign(@Nullable String group, @Nullable Integer partition) {
		try {
			return new WebEndpointResponse<>(this.endpoint.resign(group, partition));
		}
		catch (InvalidEndpointRequestException ex) {
			return new WebEndpointResponse<>(new ClusterDescriptor.Refusal(ex.getReason()),
					WebEndpointResponse.STATUS_BAD_REQUEST);
		}
	}

}
