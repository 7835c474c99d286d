package dev.membership.broadcast;

import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import java.util.stream.Stream;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.http.MediaType;

import dev.membership.broadcast.BroadcastResult.Delivery;
import dev.membership.broadcast.BroadcastResult.Outcome;
import dev.membership.liveness.Member;

/**
 * Posts a signed message to members without a thread of its own: each request goes to the HTTP client's asynchronous
 * send on the caller's thread, in the order given, so that a hand-over notice leaves the moment the node let go (the
 * broadcast's pool would add a hop per member). One retry on a connection failure, as the broadcast does. Tracks
 * what is in flight, so that a closing node waits for its last notices.
 */
final class NoticeSender {

	private static final Logger log = LoggerFactory.getLogger(ClusterBroadcaster.class);

	private final HttpClient client;

	private final BroadcastSettings settings;

	private final BroadcastMetrics metrics;

	private final Function<String, URI> uris;

	private final Set<CompletableFuture<?>> inFlight = ConcurrentHashMap.newKeySet();

	NoticeSender(HttpClient client, BroadcastSettings settings, BroadcastMetrics metrics, Function<String, URI> uris) {
		this.client = client;
		this.settings = settings;
		this.metrics = metrics;
		this.uris = uris;
	}

	/**
	 * Tells {@code first} alone when it is among {@code members} (the successor), and the others only when it could
	 * not be told (a successor that cannot be reached is replaced by telling everyone at once); everyone when
	 * {@code first} is null or not among them. Never blocks.
	 */
	CompletableFuture<List<Delivery>> tell(List<Member> members, @Nullable String first, byte[] body, String keyId,
			String signature) {
		List<Member> firsts = members.stream().filter((m) -> m.nodeId().equals(first)).toList();
		List<Member> others = members.stream().filter((m) -> !m.nodeId().equals(first)).toList();
		List<CompletableFuture<Delivery>> told = post(firsts, body, keyId, signature, false);
		return CompletableFuture.allOf(told.toArray(CompletableFuture[]::new)).thenCompose((done) -> {
			boolean delivered = !told.isEmpty() && told.get(0).join().outcome() == Outcome.DELIVERED;
			List<CompletableFuture<Delivery>> rest = delivered
					? others.stream().map((m) -> CompletableFuture.completedFuture(new Delivery(m.nodeId(),
							m.address(), Outcome.SKIPPED, "the successor was told"))).toList()
					: post(others, body, keyId, signature, true);
			return CompletableFuture.allOf(rest.toArray(CompletableFuture[]::new))
				.thenApply((all) -> Stream.concat(told.stream(), rest.stream()).map(CompletableFuture::join).toList());
		});
	}

	/**
	 * Sends {@code body} to each of {@code members} (that has an address) in their order; never blocks.
	 * {@code retry}: once more on a connection failure (a caller with somebody else to tell instead says no).
	 */
	List<CompletableFuture<Delivery>> post(List<Member> members, byte[] body, String keyId, String signature,
			boolean retry) {
		return members.stream().map((member) -> {
			if (member.address() == null || member.address().isBlank()) {
				return CompletableFuture.completedFuture(new Delivery(member.nodeId(), null, Outcome.SKIPPED,
						"no address"));
			}
			HttpRequest request = HttpRequest.newBuilder(this.uris.apply(member.address()))
				.timeout(this.settings.readTimeout())
				.header("Content-Type", MediaType.APPLICATION_JSON_VALUE)
				.header(BroadcastSettings.KEY_ID_HEADER, keyId)
				.header(BroadcastSettings.SIGNATURE_HEADER, signature)
				.POST(HttpRequest.BodyPublishers.ofByteArray(body))
				.build();
			CompletableFuture<Delivery> delivery = attempt(request, retry ? 1 : 2).handle((status, ex) -> outcome(member, status,
					ex));
			this.inFlight.add(delivery);
			delivery.whenComplete((done, ex) -> this.inFlight.remove(delivery));
			return delivery;
		}).toList();
	}

	private CompletableFuture<Integer> attempt(HttpRequest request, int attempt) {
		return this.client.sendAsync(request, HttpResponse.BodyHandlers.discarding())
			.thenApply(HttpResponse::statusCode)
			.exceptionallyCompose((ex) -> (attempt < 2 && isConnectFailure(ex)) ? attempt(request, attempt + 1)
					: CompletableFuture.failedFuture(ex));
	}

	private Delivery outcome(Member member, Integer status, Throwable ex) {
		String failure = (ex != null) ? cause(ex).toString()
				: (status / 100 != 2) ? "HTTP " + status : null;
		if (failure == null) {
			this.metrics.sent(BroadcastMetrics.Sent.DELIVERED);
			return new Delivery(member.nodeId(), member.address(), Outcome.DELIVERED, null);
		}
		log.debug("Notice to {} at {} failed: {}", member.nodeId(), member.address(), failure);
		this.metrics.sent(BroadcastMetrics.Sent.FAILED);
		return new Delivery(member.nodeId(), member.address(), Outcome.FAILED, failure);
	}

	private static Throwable cause(Throwable ex) {
		return (ex instanceof CompletionException && ex.getCause() != null) ? ex.getCause() : ex;
	}

	private static boolean isConnectFailure(Throwable ex) {
		for (Throwable t = ex; t != null; t = t.getCause()) {
			if (t instanceof ConnectException || t instanceof HttpConnectTimeoutException) {
				return true;
			}
		}
		return false;
	}

	/** Waits at most {@code grace} for the notices in flight. */
	void awaitInFlight(Duration grace) {
		try {
			CompletableFuture.allOf(this.inFlight.toArray(CompletableFuture[]::new))
				.get(grace.toMillis(), TimeUnit.MILLISECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		catch (ExecutionException | TimeoutException ex) {
			// a notice that did not make it is advisory: the others read the leases at their next tick
		}
	}

}
