package dev.membership.architecture;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaCodeUnit;
import com.tngtech.archunit.core.domain.JavaField;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.domain.JavaType;
import com.tngtech.archunit.core.domain.JavaTypeVariable;

/**
 * The shape of the public API of the published modules: for each public type an
 * application, a store or a runtime can name, its declaration and its public and
 * protected members, one line each, as ArchUnit reads them from the compiled classes,
 * generics included (what source and binary compatibility are about). The engine's rooms
 * are not part of it (no one outside the engine may use them), its way in is.
 */
final class PublicApi {

	private PublicApi() {
	}

	/** Each type's shape by its name, sorted. */
	static Map<String, List<String>> of(JavaClasses classes) {
		Map<String, List<String>> shape = new TreeMap<>();
		for (JavaClass type : classes) {
			if (isApi(type)) {
				shape.put(type.getName(), shapeOf(type));
			}
		}
		return shape;
	}

	/** The shape as the record file keeps it: a type's block, a blank line between. */
	static String write(Map<String, List<String>> shape) {
		return shape.values().stream().map((lines) -> String.join("\n", lines)).collect(Collectors.joining("\n\n"))
				+ "\n";
	}

	/** The record file read back. */
	static Map<String, List<String>> read(String text) {
		Map<String, List<String>> shape = new TreeMap<>();
		if (text.isBlank()) {
			return shape;
		}
		for (String block : text.strip().split("\n\n")) {
			List<String> lines = List.of(block.split("\n"));
			shape.put(nameIn(lines.get(0)), lines);
		}
		return shape;
	}

	/** The type's name in its declaration line. */
	static String nameIn(String declaration) {
		String[] words = declaration.split(" ");
		for (int i = 0; i < words.length - 1; i++) {
			if (List.of("class", "interface", "enum", "record", "@interface").contains(words[i])) {
				return words[i + 1].replaceAll("<.*", "");
			}
		}
		throw new IllegalArgumentException("not a declaration: " + declaration);
	}

	private static boolean isApi(JavaClass type) {
		String pkg = type.getPackageName();
		boolean engineRoom = pkg.startsWith("dev.membership.engine.") && !HouseRules.ENGINE_WAY_IN.test(type);
		if (engineRoom || type.isAnonymousClass() || type.isLocalClass()) {
			return false;
		}
		for (JavaClass c = type; c != null; c = c.getEnclosingClass().orElse(null)) {
			if (!c.getModifiers().contains(JavaModifier.PUBLIC)) {
				return false;
			}
		}
		return true;
	}

	private static List<String> shapeOf(JavaClass type) {
		List<String> lines = new ArrayList<>();
		lines.add(declaration(type));
		List<String> members = new ArrayList<>();
		boolean open = !type.getModifiers().contains(JavaModifier.FINAL);
		for (JavaField field : type.getFields()) {
			if (visible(field.getModifiers(), open)) {
				members.add("  " + modifiers(field.getModifiers()) + "field " + field.getType().getName() + " "
						+ field.getName());
			}
		}
		List<JavaCodeUnit> units = new ArrayList<>(type.getConstructors());
		units.addAll(type.getMethods());
		for (JavaCodeUnit unit : units) {
			if (!visible(unit.getModifiers(), open) || unit.getModifiers().contains(JavaModifier.BRIDGE)) {
				continue;
			}
			String parameters = unit.getParameterTypes()
				.stream()
				.map(JavaType::getName)
				.collect(Collectors.joining(", ", "(", ")"));
			String exceptions = unit.getThrowsClause()
				.getTypes()
				.stream()
				.map(JavaType::getName)
				.sorted()
				.collect(Collectors.joining(", "));
			String variables = unit.getTypeParameters()
				.stream()
				.map(PublicApi::variable)
				.collect(Collectors.joining(", "));
			String signature = (unit.isConstructor() ? "new" : unit.getReturnType().getName() + " " + unit.getName())
					+ parameters + (exceptions.isEmpty() ? "" : " throws " + exceptions);
			members.add("  " + modifiers(unit.getModifiers()) + (variables.isEmpty() ? "" : "<" + variables + "> ")
					+ signature);
		}
		members.sort(null);
		lines.addAll(members);
		return lines;
	}

	private static boolean visible(Set<JavaModifier> modifiers, boolean open) {
		return !modifiers.contains(JavaModifier.SYNTHETIC)
				&& (modifiers.contains(JavaModifier.PUBLIC) || (open && modifiers.contains(JavaModifier.PROTECTED)));
	}

	private static String declaration(JavaClass type) {
		String kind = type.isAnnotation() ? "@interface"
				: type.isInterface() ? "interface" : type.isEnum() ? "enum" : type.isRecord() ? "record" : "class";
		Set<JavaModifier> shown = EnumSet.noneOf(JavaModifier.class);
		shown.addAll(type.getModifiers());
		shown.retainAll(EnumSet.of(JavaModifier.PUBLIC, JavaModifier.PROTECTED, JavaModifier.STATIC, JavaModifier.FINAL,
				JavaModifier.ABSTRACT));
		if (type.isInterface() || type.isEnum() || type.isRecord()) {
			shown.removeAll(EnumSet.of(JavaModifier.ABSTRACT, JavaModifier.FINAL, JavaModifier.STATIC));
		}
		StringBuilder line = new StringBuilder(modifiers(shown)).append(kind).append(' ').append(type.getName());
		String variables = type.getTypeParameters().stream().map(PublicApi::variable).collect(Collectors.joining(", "));
		if (!variables.isEmpty()) {
			line.append('<').append(variables).append('>');
		}
		type.getSuperclass()
			.filter((parent) -> !List.of("java.lang.Object", "java.lang.Record", "java.lang.Enum")
				.contains(parent.toErasure().getName()))
			.ifPresent((parent) -> line.append(" extends ").append(parent.getName()));
		List<String> interfaces = type.getInterfaces()
			.stream()
			.filter((face) -> !face.toErasure().getPackageName().startsWith("dev.membership")
					|| face.toErasure().getModifiers().contains(JavaModifier.PUBLIC))
			.map(JavaType::getName)
			.filter((name) -> !name.equals("java.lang.annotation.Annotation"))
			.sorted()
			.toList();
		if (!interfaces.isEmpty()) {
			line.append(type.isInterface() ? " extends " : " implements ").append(String.join(", ", interfaces));
		}
		return line.toString();
	}

	private static String variable(JavaTypeVariable<?> variable) {
		List<String> bounds = variable.getUpperBounds()
			.stream()
			.map(JavaType::getName)
			.filter((bound) -> !bound.equals("java.lang.Object"))
			.toList();
		return variable.getName() + (bounds.isEmpty() ? "" : " extends " + String.join(" & ", bounds));
	}

	private static String modifiers(Set<JavaModifier> modifiers) {
		return modifiers.stream()
			.filter((m) -> m != JavaModifier.SYNTHETIC && m != JavaModifier.BRIDGE)
			.sorted()
			.map((m) -> m.name().toLowerCase(Locale.ROOT) + " ")
			.collect(Collectors.joining());
	}

}
