package dev.membership.broadcast;

import java.io.ByteArrayInputStream;
import java.io.InputStream;

import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferLimitException;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.web.reactive.function.BodyExtractors;
import org.springframework.web.reactive.function.server.HandlerFunction;
import org.springframework.web.reactive.function.server.RequestPredicates;
import org.springframework.web.reactive.function.server.RouterFunction;
import org.springframework.web.reactive.function.server.RouterFunctions;
import org.springframework.web.reactive.function.server.ServerRequest;
import org.springframework.web.reactive.function.server.ServerResponse;

/**
 * The receiving end of broadcasts on a reactive web server (WebFlux): the same checks and
 * answers as {@link BroadcastServlet}, because both hand the raw request to one
 * {@link BroadcastReceiver}. The body is read without blocking, and no further once past
 * the size limit; the receiver (which may load keys and runs the listeners) is called off
 * the event loop.
 */
public class ReactiveBroadcastHandler implements HandlerFunction<ServerResponse> {

	private static final InputStream NO_BODY = InputStream.nullInputStream();

	private final BroadcastReceiver receiver;

	private final long maxBodySize;

	private final Scheduler scheduler;

	public ReactiveBroadcastHandler(BroadcastReceiver receiver, BroadcastSettings settings) {
		this(receiver, settings, Schedulers.boundedElastic());
	}

	public ReactiveBroadcastHandler(BroadcastReceiver receiver, BroadcastSettings settings, Scheduler scheduler) {
		this.receiver = receiver;
		this.maxBodySize = settings.maxBodySize();
		this.scheduler = scheduler;
	}

	/**
	 * Routes {@code path} (every method: OPTIONS is answered with what is allowed,
	 * anything else but POST with 405, as the servlet does) to this handler.
	 */
	public RouterFunction<ServerResponse> route(String path) {
		return RouterFunctions.route(RequestPredicates.path(path), this);
	}

	@Override
	public Mono<ServerResponse> handle(ServerRequest request) {
		if (request.method() == HttpMethod.OPTIONS) {
			// as HttpServlet answers
			return ServerResponse.ok().allow(HttpMethod.POST, HttpMethod.OPTIONS).build();
		}
		if (request.method() != HttpMethod.POST) {
			return ServerResponse.status(HttpStatus.METHOD_NOT_ALLOWED)
				.allow(HttpMethod.POST, HttpMethod.OPTIONS)
				.build();
		}
		HttpHeaders headers = request.headers().asHttpHeaders();
		long length = headers.getContentLength();
		if (length > this.maxBodySize) {
			// answered before any of the body is read
			return receive(request, length, NO_BODY);
		}
		return DataBufferUtils
			.join(request.body(BodyExtractors.toDataBuffers()), (int) Math.min(Integer.MAX_VALUE, this.maxBodySize + 1))
			.map(ReactiveBroadcastHandler::bytes)
			.defaultIfEmpty(new byte[0])
			.flatMap((body) -> receive(request, length, new ByteArrayInputStream(body)))
			// past the limit without a length announced: the receiver answers as it would
			// have
			.onErrorResume(DataBufferLimitException.class, (ex) -> receive(request, this.maxBodySize + 1, NO_BODY));
	}

	private Mono<ServerResponse> receive(ServerRequest request, long length, InputStream body) {
		HttpHeaders headers = request.headers().asHttpHeaders();
		return Mono
			.fromCallable(() -> this.receiver.receive(headers.getFirst(HttpHeaders.CONTENT_TYPE), length, body,
					headers.getFirst(BroadcastSettings.KEY_ID_HEADER),
					headers.getFirst(BroadcastSettings.SIGNATURE_HEADER)))
			.subscribeOn(this.scheduler)
			.flatMap((answer) -> ServerResponse.status(answer.status())
				.contentType(MediaType.APPLICATION_JSON)
				.headers((out) -> {
					if (answer.signature() != null) {
						out.set(BroadcastSettings.KEY_ID_HEADER, answer.keyId());
						out.set(BroadcastSettings.SIGNATURE_HEADER, answer.signature());
					}
				})
				.bodyValue(answer.body()));
	}

	private static byte[] bytes(DataBuffer buffer) {
		try {
			byte[] bytes = new byte[buffer.readableByteCount()];
			buffer.read(bytes);
			return bytes;
		}
		finally {
			DataBufferUtils.release(buffer);
		}
	}

}
