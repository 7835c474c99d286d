package dev.membership.actuate;

import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.actuate.endpoint.web.annotation.EndpointWebExtension;

/**
 * {@code /actuator/cluster} over HTTP in a reactive application: as
 * {@link ClusterWebEndpointExtension}, the caller's address taken from the request's
 * Reactor context ({@link CallerAddressWebFilter}), since a reactive request has no
 * thread of its own.
 */
@EndpointWebExtension(endpoint = ClusterEndpoint.class)
public class ReactiveClusterWebEndpointExtension {

	private final ClusterEndpoint endpoint;

	public ReactiveClusterWebEndpointExtension(ClusterEndpoint endpoint) {
		this.endpoint = endpoint;
	}

	/** As {@link ClusterEndpoint#runs} (one database read, off the event loop). */
	@ReadOperation
	public WebEndpointResponse<Object> runs(@Selector String path, @Nullable String job, @Nullable String group,
			@Nullable Integer partition, @Nullable String node, @Nullable String since, @Nullable Integer limit) {
		return ClusterWebEndpointExtension
			.answer(() -> this.endpoint.runs(path, job, group, partition, node, since, limit));
	}

	/**
	 * As {@link ClusterEndpoint#act}, off the event loop; a refusal is a 400 that says
	 * why, an unknown action a 404.
	 */
	@WriteOperation
	public Mono<WebEndpointResponse<Object>> act(@Selector String action, @Nullable String group,
			@Nullable Integer partition, @Nullable String to, @Nullable String duration, SecurityContext security) {
		OperatorCommands.Body body = new OperatorCommands.Body(group, partition, to, duration);
		return Mono.deferContextual((context) -> {
			String address = CallerAddressWebFilter.address(context);
			return Mono.fromCallable(() -> ClusterWebEndpointExtension
				.answer(() -> this.endpoint.perform(action, body, OperatorCommands.requester(security, address))));
		}).subscribeOn(Schedulers.boundedElastic());
	}

}
