package dev.membership.actuate;

import java.net.InetSocketAddress;

import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;
import reactor.util.context.ContextView;

import org.springframework.http.HttpMethod;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;

/**
 * Puts a {@code POST}'s remote address into its Reactor context, where
 * {@link ReactiveClusterWebEndpointExtension} reads who called an operator's action from
 * (behind a proxy, the address {@code server.forward-headers-strategy} makes it). Nothing
 * else is read or kept.
 */
public class CallerAddressWebFilter implements WebFilter {

	private static final String KEY = CallerAddressWebFilter.class.getName();

	@Override
	public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
		InetSocketAddress remote = exchange.getRequest().getRemoteAddress();
		if (remote == null || !HttpMethod.POST.equals(exchange.getRequest().getMethod())) {
			return chain.filter(exchange);
		}
		String address = (remote.getAddress() != null) ? remote.getAddress().getHostAddress() : remote.getHostString();
		return chain.filter(exchange).contextWrite((context) -> context.put(KEY, address));
	}

	static @Nullable String address(ContextView context) {
		return context.getOrDefault(KEY, null);
	}

}
