package dev.membership.actuate;

import java.security.Principal;
import java.time.Duration;
import java.util.Map;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.convert.DurationStyle;

import dev.membership.operations.ClusterOperations;
import dev.membership.operations.Drain;
import dev.membership.operations.HandOver;
import dev.membership.operations.Move;
import dev.membership.operations.Pause;
import dev.membership.operations.Pin;
import dev.membership.operations.Release;
import dev.membership.operations.Requester;
import dev.membership.operations.Resign;
import dev.membership.operations.Resume;
import dev.membership.operations.Undrain;
import dev.membership.operations.Unpin;
import dev.membership.spi.MembershipSettings;

/**
 * {@code POST /actuator/cluster/<action>} onto {@link ClusterOperations}, one to one:
 * each action's body becomes its typed request, with who asked, and its answer the JSON
 * the reference documents.
 */
final class OperatorCommands {

	private static final Logger log = LoggerFactory.getLogger(ClusterEndpoint.class);

	/** Each action's body, for a refusal that says what to send. */
	private static final Map<String, String> BODIES = Map.of("resign", "{\"group\": \"reports\"} (or none: default)",
			"release", "{\"group\": \"tenants\", \"partition\": 3}", "handover",
			"{\"group\": \"reports\", \"to\": \"n2\"}", "move",
			"{\"group\": \"tenants\", \"partition\": 3, \"to\": \"n2\"}", "pin",
			"{\"group\": \"tenants\", \"partition\": 3, \"to\": \"n2\"}", "unpin",
			"{\"group\": \"tenants\", \"partition\": 3}", "pause", "{\"duration\": \"10m\"}");

	/**
	 * Spring Security's stand-in for a caller who did not authenticate (WebFlux hands it
	 * over as the principal).
	 */
	private static final java.util.regex.Pattern IPV4 = java.util.regex.Pattern.compile("\\d{1,3}(\\.\\d{1,3}){3}");

	private static final java.util.regex.Pattern IPV6 = java.util.regex.Pattern
		.compile("[0-9A-Fa-f:.]{2,45}(%[0-9A-Za-z_.-]{1,32})?");

	private static final String ANONYMOUS_TOKEN = "org.springframework.security.authentication."
			+ "AnonymousAuthenticationToken";

	private final @Nullable ClusterOperations operations;

	OperatorCommands(@Nullable ClusterOperations operations) {
		this.operations = operations;
	}

	/**
	 * The body of {@code POST /actuator/cluster/<action>}: every field optional here,
	 * each action checks its own.
	 */
	record Body(@Nullable String group, @Nullable Integer partition, @Nullable String to, @Nullable String duration) {
	}

	/**
	 * Carries out {@code action} for {@code by}; null for an unknown action.
	 * @throws IllegalArgumentException what the request lacks, or why the node refuses it
	 */
	@Nullable OperationResponseBody perform(String action, Body body, Requester by) {
		if (!ClusterEndpoint.ACTIONS.contains(action)) {
			return null;
		}
		if (this.operations == null) {
			throw refused(action, by, new IllegalArgumentException("This node takes no operators' commands: the "
					+ "application's own Membership bean comes without a ClusterOperations bean"));
		}
		return perform(this.operations, action, body, by);
	}

	/**
	 * {@code request} as made from the body; one that lacks what its action needs never
	 * reaches the node, so it is logged here, with who asked.
	 */
	private static <R> R made(String action, Requester by, Supplier<R> request) {
		try {
			return request.get();
		}
		catch (IllegalArgumentException ex) {
			throw refused(action, by, ex);
		}
	}

	private static IllegalArgumentException refused(String action, Requester by, IllegalArgumentException ex) {
		// what the caller sent, as one bounded line: a CR or LF in it never forges a line
		String why = (ex.getMessage() != null) ? ex.getMessage().replaceAll("\\p{Cntrl}", "?") : "";
		log.info("Refused POST /actuator/cluster/{} asked by {}: {}", action, by,
				(why.length() > 300) ? why.substring(0, 300) + "..." : why);
		return ex;
	}

	private static @Nullable OperationResponseBody perform(ClusterOperations operations, String action, Body body,
			Requester by) {
		return switch (action) {
			case "resign" -> resignation(operations.resign(made(action, by, () -> new Resign(
					(body.group() != null && !body.group().isBlank()) ? body.group() : MembershipSettings.DEFAULT_GROUP,
					by))));
			case "release" -> resignation(
					operations.release(made(action, by, () -> new Release(body.group(), partition(action, body), by))));
			case "drain" -> drain(operations.drain(new Drain(by)));
			case "undrain" -> drain(operations.undrain(new Undrain(by)));
			case "handover" ->
				handOver(operations.handOver(made(action, by, () -> new HandOver(body.group(), body.to(), by))));
			case "move" -> placement(operations
				.move(made(action, by, () -> new Move(body.group(), partition(action, body), body.to(), by))));
			case "pin" -> placement(operations
				.pin(made(action, by, () -> new Pin(body.group(), partition(action, body), body.to(), by))));
			case "unpin" -> placement(
					operations.unpin(made(action, by, () -> new Unpin(body.group(), partition(action, body), by))));
			case "pause" -> pause(operations.pause(made(action, by, () -> new Pause(duration(body), by))));
			case "resume" -> pause(operations.resume(new Resume(by)));
			default -> null;
		};
	}

	/** The authenticated principal's name, or {@code anonymous}, from {@code address}. */
	static Requester requester(@Nullable SecurityContext security, @Nullable String address) {
		Principal principal = (security != null) ? security.getPrincipal() : null;
		String name = (principal != null && !ANONYMOUS_TOKEN.equals(principal.getClass().getName()))
				? principal.getName() : null;
		return new Requester((name != null && !name.isBlank()) ? name : Requester.ANONYMOUS, literal(address));
	}

	/**
	 * {@code address} when it is an IP address literal, else null: behind a forwarding
	 * strategy the server takes the caller's address from a header, whose value anyone
	 * may write ({@code Forwarded: for="<img src=x>"}), and only an address is recorded.
	 */
	static @Nullable String literal(@Nullable String address) {
		if (address == null) {
			return null;
		}
		String bare = (address.startsWith("[") && address.endsWith("]")) ? address.substring(1, address.length() - 1)
				: address;
		boolean literal = IPV4.matcher(bare).matches() || (bare.indexOf(':') >= 0 && IPV6.matcher(bare).matches());
		return literal ? bare : null;
	}

	private static int partition(String action, Body body) {
		if (body.partition() == null) {
			throw new IllegalArgumentException(
					"POST /actuator/cluster/" + action + " names the partition: " + BODIES.get(action));
		}
		return body.partition();
	}

	private static @Nullable Duration duration(Body body) {
		try {
			return (body.duration() != null && !body.duration().isBlank())
					? DurationStyle.detectAndParse(body.duration().strip()) : null;
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalArgumentException(
					"Cannot read the duration '" + body.duration() + "': " + BODIES.get("pause"));
		}
	}

	private static ClusterDescriptor.Resignation resignation(dev.membership.operations.ResignResult result) {
		return new ClusterDescriptor.Resignation(result.group(), result.partition(), result.resigned());
	}

	private static ClusterDescriptor.Drain drain(dev.membership.operations.DrainResult result) {
		return new ClusterDescriptor.Drain(result.nodeId(), result.drained(), result.handingOver());
	}

	private static ClusterDescriptor.HandOver handOver(dev.membership.operations.HandOverResult result) {
		return new ClusterDescriptor.HandOver(result.group(), result.from(), result.to());
	}

	private static ClusterDescriptor.Move placement(dev.membership.operations.PlacementResult result) {
		return new ClusterDescriptor.Move(result.group(), result.partition(), result.to(), result.pinned());
	}

	private static ClusterDescriptor.Pause pause(dev.membership.operations.PauseResult result) {
		return new ClusterDescriptor.Pause((result.pausedUntil() != null) ? result.pausedUntil().toString() : null);
	}

}
