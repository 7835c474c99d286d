package dev.membership.actuate;

import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.actuate.endpoint.web.annotation.EndpointWebExtension;
import org.springframework.web.context.request.RequestAttributes;
import org.springframework.web.context.request.RequestContextHolder;
import org.springframework.web.context.request.ServletRequestAttributes;

/**
 * {@code /actuator/cluster} over HTTP in a servlet application: an operation the node
 * refuses answers 400 with the reason in the body ({@code {"error": "..."}}), so that an
 * operator sees why without reading the node's log, and an operator's action is recorded
 * with the caller's address as the server saw it.
 */
@EndpointWebExtension(endpoint = ClusterEndpoint.class)
public class ClusterWebEndpointExtension {

	private final ClusterEndpoint endpoint;

	public ClusterWebEndpointExtension(ClusterEndpoint endpoint) {
		this.endpoint = endpoint;
	}

	/**
	 * As {@link ClusterEndpoint#runs}; a query it cannot answer is a 400 that says why,
	 * another path a 404.
	 */
	@ReadOperation
	public WebEndpointResponse<Object> runs(@Selector String path, @Nullable String job, @Nullable String group,
			@Nullable Integer partition, @Nullable String node, @Nullable String since, @Nullable Integer limit) {
		return answer(() -> this.endpoint.runs(path, job, group, partition, node, since, limit));
	}

	/**
	 * As {@link ClusterEndpoint#act}; a refusal is a 400 that says why, an unknown action
	 * a 404.
	 */
	@WriteOperation
	public WebEndpointResponse<Object> act(@Selector String action, @Nullable String group, @Nullable Integer partition,
			@Nullable String to, @Nullable String duration, SecurityContext security) {
		return answer(() -> this.endpoint.perform(action, new OperatorCommands.Body(group, partition, to, duration),
				OperatorCommands.requester(security, remoteAddress())));
	}

	/**
	 * {@code call}'s answer: 404 when it has none, 400 with the reason when the node
	 * refuses it.
	 */
	static WebEndpointResponse<Object> answer(Supplier<@Nullable Object> call) {
		try {
			Object done = call.get();
			return (done != null) ? new WebEndpointResponse<>(done)
					: new WebEndpointResponse<>(WebEndpointResponse.STATUS_NOT_FOUND);
		}
		catch (InvalidEndpointRequestException ex) {
			return new WebEndpointResponse<>(new ClusterDescriptor.Refusal(ex.getReason()),
					WebEndpointResponse.STATUS_BAD_REQUEST);
		}
	}

	/**
	 * The request's remote address (behind a proxy, as
	 * {@code server.forward-headers-strategy} makes it).
	 */
	private static @Nullable String remoteAddress() {
		RequestAttributes attributes = RequestContextHolder.getRequestAttributes();
		return (attributes instanceof ServletRequestAttributes servlet) ? servlet.getRequest().getRemoteAddr() : null;
	}

}
