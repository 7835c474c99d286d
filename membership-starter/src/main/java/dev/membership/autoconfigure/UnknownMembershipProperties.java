package dev.membership.autoconfigure;

import java.beans.PropertyDescriptor;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import org.springframework.beans.BeanUtils;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.context.properties.source.IterableConfigurationPropertySource;
import org.springframework.core.annotation.MergedAnnotation;
import org.springframework.core.annotation.MergedAnnotations;
import org.springframework.core.env.Environment;
import org.springframework.core.env.StandardEnvironment;

import dev.membership.InvalidMembershipSettingsException.Violation;

/**
 * Finds {@code membership.*} properties that bind to nothing (a typo such as
 * {@code membership.lease}), which Spring would otherwise ignore, and names the nearest
 * valid property. Checked: the application's configuration files, command-line arguments
 * and the like. Not checked: environment variables and JVM system properties, where other
 * tools' {@code MEMBERSHIP_*} or {@code membership.*} settings cannot be told apart from
 * ours.
 */
final class UnknownMembershipProperties {

	private static final ConfigurationPropertyName PREFIX = ConfigurationPropertyName.of("membership");

	private static final Set<String> NOT_CHECKED = Set.of(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME,
			StandardEnvironment.SYSTEM_PROPERTIES_PROPERTY_SOURCE_NAME);

	/**
	 * Every valid name, from the properties class itself, so it cannot drift from what
	 * binds.
	 */
	private static final List<String> KNOWN = known("membership", MembershipProperties.class,
			MembershipProperties.class);

	/**
	 * The valid names that are maps ({@code membership.partitions}): any name below one
	 * of them binds.
	 */
	private static final List<ConfigurationPropertyName> MAPS = java.util.Arrays
		.stream(BeanUtils.getPropertyDescriptors(MembershipProperties.class))
		.filter((property) -> java.util.Map.class.isAssignableFrom(property.getPropertyType()))
		.map((property) -> ConfigurationPropertyName.of("membership." + dashed(property.getName())))
		.toList();

	private UnknownMembershipProperties() {
	}

	/**
	 * The unknown names, and the nearest known one of each; {@code modules}: the store
	 * modules' properties classes
	 * ({@code @ConfigurationProperties("membership.<store>")}), whose names are known
	 * too.
	 */
	static List<Violation> check(Environment environment, List<Class<?>> modules) {
		List<String> known = new ArrayList<>(KNOWN);
		for (Class<?> type : modules) {
			// value or prefix, whichever the module wrote
			MergedAnnotation<ConfigurationProperties> properties = MergedAnnotations.from(type)
				.get(ConfigurationProperties.class);
			String prefix = properties.isPresent() ? properties.getString("prefix") : "";
			if (prefix.startsWith("membership.")) {
				known.add(prefix);
				known.addAll(known(prefix, type, type));
			}
		}
		Set<String> unknown = new LinkedHashSet<>();
		for (ConfigurationPropertySource source : ConfigurationPropertySources.get(environment)) {
			Object underlying = source.getUnderlyingSource();
			if (underlying instanceof org.springframework.core.env.PropertySource<?> propertySource
					&& NOT_CHECKED.contains(propertySource.getName())) {
				continue;
			}
			if (source instanceof IterableConfigurationPropertySource iterable) {
				iterable.stream()
					.filter(PREFIX::isAncestorOf)
					.map(UnknownMembershipProperties::withoutIndexes)
					.filter((name) -> known.stream().noneMatch((k) -> ConfigurationPropertyName.of(k).equals(name)))
					.filter((name) -> MAPS.stream().noneMatch((map) -> map.isAncestorOf(name)))
					.forEach((name) -> unknown.add(name.toString()));
			}
		}
		List<Violation> violations = new ArrayList<>();
		for (String name : unknown) {
			String nearest = nearest(name, known);
			violations.add(new Violation(List.of(name.substring("membership.".length())),
					"is not a membership property, so it would be ignored"
							+ ((nearest != null) ? "; did you mean " + nearest + "?" : "")));
		}
		return violations;
	}

	/** {@code membership.groups[0]} is {@code membership.groups}. */
	private static ConfigurationPropertyName withoutIndexes(ConfigurationPropertyName name) {
		ConfigurationPropertyName result = name;
		while (result.isLastElementIndexed()) {
			result = result.getParent();
		}
		return result;
	}

	/**
	 * A valid name that starts like the unknown one's last part, else the closest by edit
	 * distance.
	 */
	static String nearest(String name, List<String> known) {
		String last = name.substring(name.lastIndexOf('.') + 1);
		String parent = name.substring(0, name.lastIndexOf('.') + 1);
		for (String candidate : known) {
			if (candidate.startsWith(parent) && candidate.substring(parent.length()).startsWith(last)
					&& candidate.indexOf('.', parent.length()) < 0) {
				return candidate;
			}
		}
		String best = known.stream().min(Comparator.comparingInt((k) -> distance(k, name))).orElse(null);
		return (best != null && distance(best, name) <= Math.max(3, name.length() / 3)) ? best : null;
	}

	private static int distance(String a, String b) {
		int[] previous = new int[b.length() + 1];
		int[] current = new int[b.length() + 1];
		for (int j = 0; j <= b.length(); j++) {
			previous[j] = j;
		}
		for (int i = 1; i <= a.length(); i++) {
			current[0] = i;
			for (int j = 1; j <= b.length(); j++) {
				int substitution = previous[j - 1] + ((a.charAt(i - 1) == b.charAt(j - 1)) ? 0 : 1);
				current[j] = Math.min(substitution, Math.min(previous[j] + 1, current[j - 1] + 1));
			}
			int[] swap = previous;
			previous = current;
			current = swap;
		}
		return previous[b.length()];
	}

	private static List<String> known(String prefix, Class<?> type, Class<?> root) {
		List<String> names = new ArrayList<>();
		for (PropertyDescriptor property : BeanUtils.getPropertyDescriptors(type)) {
			if (property.getReadMethod() == null || "class".equals(property.getName())) {
				continue;
			}
			String name = prefix + "." + dashed(property.getName());
			Class<?> propertyType = property.getPropertyType();
			if (isGroup(propertyType, root)) {
				// the group itself: a YAML key whose children are all commented out
				names.add(name);
				// a nested group such as broadcast or jdbc.pool; a class of its own holds
				// its groups itself
				names.addAll(
						known(name, propertyType, (propertyType.getDeclaringClass() == null) ? propertyType : root));
			}
			else if (property.getWriteMethod() != null) {
				names.add(name);
			}
		}
		return List.copyOf(names);
	}

	/**
	 * A group: a class of the properties class's own at any depth ({@code Pool}), or one
	 * of membership's property classes beside it ({@code BroadcastProperties}); never an
	 * enum.
	 */
	private static boolean isGroup(Class<?> type, Class<?> root) {
		if (type.isEnum() || type.isPrimitive()) {
			return false;
		}
		if (type.getName().startsWith("dev.membership.") && type.getSimpleName().endsWith("Properties")) {
			return true;
		}
		for (Class<?> outer = type.getDeclaringClass(); outer != null; outer = outer.getDeclaringClass()) {
			if (outer == root) {
				return true;
			}
		}
		return false;
	}

	private static String dashed(String camel) {
		StringBuilder dashed = new StringBuilder();
		for (char c : camel.toCharArray()) {
			if (Character.isUpperCase(c)) {
				dashed.append('-').append(Character.toLowerCase(c));
			}
			else {
				dashed.append(c);
			}
		}
		return dashed.toString();
	}

}
