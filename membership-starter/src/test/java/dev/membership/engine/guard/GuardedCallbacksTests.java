package dev.membership.engine.guard;

import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import dev.membership.spi.ElectionMetrics;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The node's one {@link ElectionMetrics} passes every callback on to each of the
 * application's, whatever it adds later. Before: {@code firesMissed} was never passed on,
 * and {@code membership.runs.missed} never counted.
 */
class GuardedCallbacksTests {

	@Test
	void everyMetricsCallbackReachesEachMetrics() throws Exception {
		List<String> heard = new ArrayList<>();
		ElectionMetrics recording = (ElectionMetrics) Proxy.newProxyInstance(getClass().getClassLoader(),
				new Class<?>[] { ElectionMetrics.class }, (proxy, method, args) -> {
					if (method.getDeclaringClass() == ElectionMetrics.class) {
						heard.add(method.getName());
					}
					return null;
				});
		ElectionMetrics node = GuardedCallbacks.metrics(List.of(recording));
		List<String> callbacks = new ArrayList<>();
		for (Method method : ElectionMetrics.class.getDeclaredMethods()) {
			if (method.isSynthetic() || java.lang.reflect.Modifier.isStatic(method.getModifiers())) {
				continue;
			}
			callbacks.add(method.getName());
			method.invoke(node, arguments(method));
		}
		assertThat(callbacks).contains("firesMissed", "acquisition", "renewal");
		assertThat(heard).containsExactlyInAnyOrderElementsOf(callbacks);
	}

	private static Object[] arguments(Method method) {
		Class<?>[] types = method.getParameterTypes();
		Object[] values = new Object[types.length];
		for (int i = 0; i < types.length; i++) {
			Class<?> type = types[i];
			values[i] = (type == String.class) ? "x"
					: (type == long.class) ? 1L : (type == int.class) ? 1 : (type == Duration.class)
							? Duration.ofSeconds(1) : type.isEnum() ? type.getEnumConstants()[0] : null;
		}
		return values;
	}

}
