package dev.membership.actuate;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
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

	/** As {@link ClusterEndpoint#runs}; a query it cannot answer is a 400 that says why, another path a 404. */
	@ReadOperation
	public WebEndpointResponse<Object> runs(@Selector String path, @Nullable String job, @Nullable String group,
			@Nullable Integer partition, @Nullable String node, @Nullable String since, @Nullable Integer limit) {
		try {
			RunHistoryDescriptor runs = this.endpoint.runs(path, job, group, partition, node, since, limit);
			return (runs != null) ? new WebEndpointResponse<>(runs)
					: new WebEndpointResponse<>(WebEndpointResponse.STATUS_NOT_FOUND);
		}
		catch (InvalidEndpointRequestException ex) {
			return new WebEndpointResponse<>(new ClusterDescriptor.Refusal(ex.getReason()),
					WebEndpointResponse.STATUS_BAD_REQUEST);
		}
	}

	/** As {@link ClusterEndpoint#act}; a refusal is a 400 that says why, an unknown action a 404. */
	@WriteOperation
	public WebEndpointResponse<Object> act(@Selector String action, @Nullable String group, @Nullable String to,
			@Nullable Integer partition, @Nullable Boolean pin, @Nullable String duration) {
		try {
			Object done = this.endpoint.act(action, group, to, partition, pin, duration);
			return (done != null) ? new WebEndpointResponse<>(done)
					: new WebEndpointResponse<>(WebEndpointResponse.STATUS_NOT_FOUND);
		}
		catch (InvalidEndpointRequestException ex) {
			return new WebEndpointResponse<>(new ClusterDescriptor.Refusal(ex.getReason()),
					WebEndpointResponse.STATUS_BAD_REQUEST);
		}
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
