package dev.membership.broadcast;

import java.io.IOException;
import java.net.ConnectException;
import java.net.HttpURLConnection;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.util.Locale;
import java.util.function.Function;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.http.MediaType;
import org.springframework.http.client.SimpleClientHttpRequestFactory;
import org.springframework.web.client.ResourceAccessException;
import org.springframework.web.client.RestClient;
import org.springframework.web.client.RestClientResponseException;

import dev.membership.broadcast.BroadcastResult.Delivery;
import dev.membership.broadcast.BroadcastResult.Outcome;
import dev.membership.liveness.Member;

/**
 * Posts one signed broadcast to one member, with the settings' connect and read timeouts
 * and one retry when the connection could not be made (never after a read timeout: the
 * member may have it already).
 */
final class HttpDelivery {

	private static final Logger log = LoggerFactory.getLogger(ClusterBroadcaster.class);

	private final RestClient http;

	private final BroadcastMetrics metrics;

	private final Function<String, URI> uri;

	HttpDelivery(BroadcastSettings settings, BroadcastMetrics metrics, Function<String, URI> uri) {
		this.metrics = metrics;
		this.uri = uri;
		// the JDK's plain connection (kept alive, no redirects followed), as the
		// notices': the JDK's HttpClient keeps a selector thread for as long as it lives,
		// a thread an idle node would keep for nothing
		SimpleClientHttpRequestFactory requests = new SimpleClientHttpRequestFactory() {

			@Override
			protected void prepareConnection(HttpURLConnection connection, String httpMethod) throws IOException {
				super.prepareConnection(connection, httpMethod);
				connection.setInstanceFollowRedirects(false);
			}

		};
		requests.setConnectTimeout(settings.connectTimeout());
		requests.setReadTimeout(settings.readTimeout());
		this.http = RestClient.builder().requestFactory(requests).build();
	}

	Delivery deliver(Member member, byte[] body, String keyId, String signature) {
		URI uri = this.uri.apply(member.address());
		String failure = null;
		for (int attempt = 1; attempt <= 2; attempt++) {
			try {
				this.http.post()
					.uri(uri)
					.contentType(MediaType.APPLICATION_JSON)
					.header(BroadcastSettings.KEY_ID_HEADER, keyId)
					.header(BroadcastSettings.SIGNATURE_HEADER, signature)
					.body(body)
					.retrieve()
					.toBodilessEntity();
				this.metrics.sent(BroadcastMetrics.Sent.DELIVERED);
				return new Delivery(member.nodeId(), member.address(), Outcome.DELIVERED, null);
			}
			catch (RestClientResponseException ex) {
				failure = "HTTP " + ex.getStatusCode().value();
				break;
			}
			catch (ResourceAccessException ex) {
				failure = ex.getMostSpecificCause().toString();
				if (!isConnectFailure(ex)) {
					break; // a read timeout: the member may have it; do not send twice
				}
			}
			catch (RuntimeException ex) {
				failure = ex.toString();
				break;
			}
		}
		log.debug("Broadcast to {} at {} failed: {}", member.nodeId(), uri, failure);
		this.metrics.sent(BroadcastMetrics.Sent.FAILED);
		return new Delivery(member.nodeId(), member.address(), Outcome.FAILED, failure);
	}

	private static boolean isConnectFailure(ResourceAccessException ex) {
		for (Throwable t = ex; t != null; t = t.getCause()) {
			if (t instanceof ConnectException
					|| (t instanceof SocketTimeoutException timeout && timeout.getMessage() != null
							&& timeout.getMessage().toLowerCase(Locale.ROOT).contains("connect"))) {
				return true; // nothing was sent
			}
		}
		return false;
	}

}
