// The bridge from a primitive's typed rules to a graph Equation: records an
// application of primitive P while tracing, and erases P's static types so
// transforms can evaluate, differentiate and print equations uniformly.
//
// The rules a primitive may declare beside `shape_rule` and `impl`:
//   jvp(params, out, primals..., tangents...)  -> output tangent (Array, or
//                                                 fusion::Zero<U> for none)
//   vjp(params, ct, out, primals...)           -> one cotangent per operand,
//                                                 as a std::tuple (or a lone
//                                                 value for one operand); an
//                                                 operand that takes none
//                                                 gets graph::NoCotangent
//   vjp(params, wanted, ct, out, primals...)   -> the same, where wanted[i]
//                                                 says whether operand i needs
//                                                 one (std::nullopt if not)
//   expand(params, operands...)                -> instead of jvp and vjp: the
//                                                 output computed by other
//                                                 primitives, differentiated
//                                                 by their rules
//   batch(params, axis, dims, operands...)     -> {output, its BatchDim} (vmap;
//                                                 dims: one per operand array)
//   params_string(params)                      -> `axes=(0,)` for make_jaxpr
//   is_identity(params, operand_shape)         -> layout primitives: whether
//                                                 this returns its operand
//                                                 unchanged (jit drops it)
//   forwarded_operand(params, uniform)         -> the operand returned as is
//                                                 when some operands hold one
//                                                 value (`x * 1`; jit drops it)
//   (both reach PrimitiveBase::forwarded_operand)
//   run_row(params, values, steps, operands, out, n)
//                                              -> elementwise primitives: n
//                                                 results from raw rows (jit
//                                                 fuses runs of these)
//   impl_accumulating(params, out_shape, operands..., addend, scale)
//                                              -> addend (broadcast) + scale
//                                                 * impl(...), for a kernel
//                                                 that adds into a buffer (a
//                                                 GEMM: jit's plan hands it
//                                                 the update that reads it)
//   row_fold<T>(params, operand_shape)         -> reductions: a RowFold when
//                                                 this one reduces the last
//                                                 axes (jit ends a fused run
//                                                 in it)
//   partition(params, layouts, reshard, parts...)
//                                              -> sharded jit: {result on this
//                                                 device's parts, its layout,
//                                                 axes it is partial over}
//   partition_as(params, wanted, layouts, reshard, parts...)
//                                              -> the same with the result
//                                                 wanted laid out as `wanted`
//                                                 (a draw that can make any
//                                                 block of itself)
//   wanted_operand_layout(params, k, operand_shape)
//                                              -> the layout operand k is
//                                                 asked for (a sharding
//                                                 constraint's own)
//   bind(params, operands...), binds_axis(params, name), axis_variance(params)
//                                              -> for collectives, which bind
//                                                 to the trace of their axis
//                                                 and change where values vary
// Operands are Array<T> or std::vector<Array<T>>; or, for a dtype-generic
// primitive (one that declares `dtype_generic = true`: the layout primitives,
// whose kernels make views, and float_convert, whose kernel dispatches on
// the dtype at run time), AnyArray: its rules are templates on an
// ErasedArray, it is compiled once for every dtype, and its output has its
// first operand's dtype, or the one its `out_dtype(params, operands...)`
// rule names.
#pragma once

#include <array>
#include <atomic>
#include <concepts>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "jaxcc/core/any_array.hpp"
#include "jaxcc/core/array.hpp"
#include "jaxcc/core/runtime_compiled.hpp"
#include "jaxcc/graph/bind_target.hpp"
#include "jaxcc/graph/program.hpp"  // expansion_jvp, expansion_vjp
#include "jaxcc/graph/trace.hpp"

namespace jaxcc::fusion {
template <Element T>
struct Zero;
}

namespace jaxcc::detail {
template <class Primitive, class... Operands>
auto bind(typename Primitive::Params const& params, Operands const&... operands);
}  // namespace jaxcc::detail

namespace jaxcc::graph {
/// The operand type of a dtype-generic primitive's rules. They are
/// templates on it only so that they are compiled where they are used.
template <class A>
concept ErasedArray = std::same_as<A, AnyArray>;

/// A primitive whose rules and kernel take any dtype (on ErasedArray
/// operands), so that it is instantiated once, not once per dtype.
template <class P>
concept DtypeGenericPrimitive = requires {
  { P::dtype_generic } -> std::convertible_to<bool>;
} && P::dtype_generic;

/// What a VJP rule returns for an operand that takes no cotangent (integer
/// operands, indices).
struct NoCotangent {};
}  // namespace jaxcc::graph

namespace jaxcc::detail {

template <class O>
struct operand_traits;

template <Element T>
struct operand_traits<Array<T>> {
  static std::size_t count(Array<T> const&) { return 1; }
  static void collect(Array<T> const& a, std::vector<AnyArray>& out) { out.emplace_back(a); }
  static Array<T> rebuild(std::span<AnyArray const> in, std::size_t& pos, std::size_t) { return in[pos++].as<T>(); }
  template <class F>
  static void each(Array<T> const& a, F&& f) {
    f(a);
  }
};

template <>
struct operand_traits<AnyArray> {
  static std::size_t count(AnyArray const&) { return 1; }
  static void collect(AnyArray const& a, std::vector<AnyArray>& out) { out.push_back(a); }
  static AnyArray rebuild(std::span<AnyArray const> in, std::size_t& pos, std::size_t) { return in[pos++]; }
  template <class F>
  static void each(AnyArray const& a, F&& f) {
    f(a);
  }
};

template <Element T>
struct operand_traits<std::vector<Array<T>>> {
  static std::size_t count(std::vector<Array<T>> const& v) { return v.size(); }
  static void collect(std::vector<Array<T>> const& v, std::vector<AnyArray>& out) {
    for (auto const& a : v) out.emplace_back(a);
  }
  static std::vector<Array<T>> rebuild(std::span<AnyArray const> in, std::size_t& pos, std::size_t n) {
    std::vector<Array<T>> v;
    v.reserve(n);
    for (std::size_t i = 0; i < n; ++i) v.push_back(in[pos++].as<T>());
    return v;
  }
  template <class F>
  static void each(std::vector<Array<T>> const& v, F&& f) {
    for (auto const& a : v) f(a);
  }
};

/// A zero of `shape` that costs one element: every stride is 0.
template <Element T>
Array<T> zeros_view(Shape const& shape) {
  return ArrayAccess::make<T>(ArrayAccess::handle(zeros_view(dtype_of<T>, shape)));
}

/// A tangent as a rule takes it: a symbolic zero (none) made real as a
/// zeros_view of the primal's shape and dtype.
inline AnyArray tangent_or_zeros(AnyArray const& primal, graph::MaybeArray const& tangent) {
  if (tangent) return *tangent;
  return zeros_view(primal.dtype(), primal.shape());
}

template <class X>
struct is_symbolic_zero : std::false_type {};
template <Element T>
struct is_symbolic_zero<fusion::Zero<T>> : std::true_type {};

/// Append one cotangent result (an Array, a vector of them, or none) as
/// `count` slots.
template <class C>
void append_cotangent(C const& c, std::size_t count, std::vector<graph::MaybeArray>& out) {
  if constexpr (std::same_as<C, graph::NoCotangent> || is_symbolic_zero<C>::value) {
    for (std::size_t i = 0; i < count; ++i) out.emplace_back(std::nullopt);
  } else if constexpr (AnArray<C>) {
    out.emplace_back(AnyArray(c));
  } else if constexpr (std::same_as<C, AnyArray>) {
    out.emplace_back(c);
  } else if constexpr (requires { c.has_value(); }) {
    if (c) append_cotangent(*c, count, out);
    else out.insert(out.end(), count, std::nullopt);
  } else {
    for (auto const& a : c) out.emplace_back(AnyArray(a));
  }
}

/// Whether primitive P declares a member named `rule`, whatever its
/// signature: the name is then ambiguous between P and a base that has a
/// member of that name, so taking its address fails.
#define JAXCC_DECLARES_RULE(rule)                                   \
  struct rule##_name {                                              \
    int rule;                                                       \
  };                                                                \
  template <class P>                                                \
  struct with_##rule##_name : P, rule##_name {};                    \
  template <class P>                                                \
  concept declares_##rule = !requires { &with_##rule##_name<P>::rule; };
JAXCC_DECLARES_RULE(jvp)
JAXCC_DECLARES_RULE(vjp)
JAXCC_DECLARES_RULE(expand)
JAXCC_DECLARES_RULE(batch)
JAXCC_DECLARES_RULE(partition)
JAXCC_DECLARES_RULE(partition_as)
JAXCC_DECLARES_RULE(run_row)
JAXCC_DECLARES_RULE(row_fold)
JAXCC_DECLARES_RULE(forwarded_operand)
JAXCC_DECLARES_RULE(is_identity)
JAXCC_DECLARES_RULE(params_string)
JAXCC_DECLARES_RULE(axis_variance)
JAXCC_DECLARES_RULE(binds_axis)
#undef JAXCC_DECLARES_RULE

template <class T>
struct is_tuple : std::false_type {};
template <class... T>
struct is_tuple<std::tuple<T...>> : std::true_type {};

}  // namespace jaxcc::detail

namespace jaxcc::graph {

template <class P, class... Operands>
class PrimitiveOf;

/// Each array inside the operands (an Array, or each of a vector's).
template <class F, class... Operands>
void for_each_operand_array(F&& f, Operands const&... operands) {
  (detail::operand_traits<Operands>::each(operands, f), ...);
}

/// Where an application to these operands goes (graph/bind_target.hpp).
template <class... Operands>
BindTarget target_of(Operands const&... operands) {
  BindTarget target;
  for_each_operand_array([&](auto const& a) { target.see(detail::ArrayAccess::impl(a)); }, operands...);
  return target;
}

/// An application's primitive object, held through its base: every
/// primitive then shares one shared_ptr control block type, where
/// make_shared would compile one per PrimitiveOf type, each with its own
/// vtable (a second allocation per recorded equation is the price).
template <class P, class... Operands>
std::shared_ptr<PrimitiveBase const> new_primitive(typename P::Params const& params, Operands const&... operands) {
  PrimitiveBase const* primitive = new PrimitiveOf<P, Operands...>(
      params, std::array<std::size_t, sizeof...(Operands)>{detail::operand_traits<Operands>::count(operands)...});
  return std::shared_ptr<PrimitiveBase const>(primitive);
}

/// Runs one application of a primitive on concrete operands of which some
/// are laid out on a mesh, partitioned over its devices as a sharded jit of
/// it would be; nullopt where it cannot (then the kernel runs whole).
/// Installed where arrays first meet a mesh (sharding/eager.hpp); null
/// until then, and in a file that never places arrays on a mesh.
using ShardedApply = std::optional<AnyArray> (*)(std::shared_ptr<PrimitiveBase const> const& primitive,
                                                 std::span<AnyArray const> operands);
inline std::atomic<ShardedApply>& sharded_apply() {
  static std::atomic<ShardedApply> apply{nullptr};
  return apply;
}

/// P applied to operands of which some are laid out on a mesh, run
/// partitioned (ShardedApply); nullopt where that is not installed or does
/// not apply.
template <class P, class... Operands>
auto apply_sharded(typename P::Params const& params, Operands const&... operands)
    -> std::optional<decltype(P::impl(params, std::declval<Shape>(), operands...))> {
  using Out = decltype(P::impl(params, std::declval<Shape>(), operands...));
  auto const apply = sharded_apply().load(std::memory_order_acquire);
  if (!apply) return std::nullopt;
  std::vector<AnyArray> arrays;
  for_each_operand_array([&](auto const& a) { arrays.emplace_back(a); }, operands...);
  auto const out = apply(new_primitive<P>(params, operands...), arrays);
  if (!out) return std::nullopt;
  if constexpr (std::same_as<Out, AnyArray>) return *out;
  else return out->template as<typename Out::value_type>();
}

/// Records an equation of `primitive` on `operands` with one output of
/// `dtype` and `shape`, and returns the output's var: what recording does
/// whatever the primitive, compiled once rather than in each typed record.
inline VarPtr record_equation(Trace& trace, std::shared_ptr<PrimitiveBase const> primitive,
                              std::span<AnyArray const> operands, DType dtype, Shape shape) {
  std::vector<VarPtr> inputs;
  inputs.reserve(operands.size());
  for (auto const& operand : operands) inputs.push_back(trace.var_for(operand));
  auto out = trace.new_var(dtype, std::move(shape));
  trace.record(std::move(primitive), std::move(inputs), {out});
  return out;
}

/// Record an application of P in `trace`; returns its traced output.
template <class P, class... Operands>
auto record(Trace& trace, typename P::Params const& params, Shape out_shape, Operands const&... operands) {
  using Out = decltype(P::impl(params, out_shape, operands...));
  std::vector<AnyArray> arrays;
  for_each_operand_array([&](auto const& a) { arrays.emplace_back(a); }, operands...);
  DType out_dtype{};
  if constexpr (requires { P::out_dtype(params, operands...); }) out_dtype = P::out_dtype(params, operands...);
  else if constexpr (std::same_as<Out, AnyArray>) out_dtype = std::get<0>(std::tie(operands...)).dtype();
  else out_dtype = dtype_of<typename Out::value_type>;
  auto const out = record_equation(trace, new_primitive<P>(params, operands...), arrays, out_dtype, std::move(out_shape));
  if constexpr (std::same_as<Out, AnyArray>) return Trace::traced_any(out);
  else return Trace::traced_array<typename Out::value_type>(out);
}

/// bind at these operand types (primitives/bind.hpp): a class of its own,
/// not a member of PrimitiveOf, so that a file linking the precompiled
/// runtime declares the library's binds for the operand types it holds
/// without instantiating PrimitiveOf's class for each.
template <class P, class... Operands>
struct Binder {
  using out_type = decltype(P::impl(std::declval<typename P::Params const&>(), std::declval<Shape>(),
                                    std::declval<Operands const&>()...));
  static out_type bind(typename P::Params const& params, Operands const&... operands);
};

template <class P, class... Operands>
class PrimitiveOf final : public PrimitiveBase {
 public:
  using Params = typename P::Params;
  /// What P's kernel returns for these operands: an Array, or an AnyArray
  /// for a dtype-generic primitive.
  using out_type = typename Binder<P, Operands...>::out_type;

  PrimitiveOf(Params params, std::array<std::size_t, sizeof...(Operands)> counts)
      : params_(std::move(params)), counts_(counts) {
    check_rules();
  }

  std::string_view name() const override {
    if constexpr (requires { P::display_name(params_); }) return P::display_name(params_);
    else return P::name;
  }
  std::string params_string() const override {
    if constexpr (requires { P::params_string(params_); }) return P::params_string(params_);
    else return {};
  }
  Params const& params() const noexcept { return params_; }

  void print(JaxprSink& w, std::span<std::string const> inputs, std::span<VarPtr const> outputs) const override {
    if constexpr (requires { P::print(w, params_, inputs, outputs); }) P::print(w, params_, inputs, outputs);
    else PrimitiveBase::print(w, inputs, outputs);
  }

  std::vector<AnyArray> evaluate(std::span<AnyArray const> inputs) const override { return {evaluate_one(inputs)}; }
  void evaluate_into(std::span<AnyArray const> inputs, std::vector<AnyArray>& out) const override {
    out.push_back(evaluate_one(inputs));
  }
  bool accumulates() const override { return has_impl_accumulating(); }
  AnyArray evaluate_accumulating(std::span<AnyArray const> inputs, AnyArray const& addend,
                                 double scale) const override {
    if constexpr (has_impl_accumulating()) {
      auto target = target_of_arrays(inputs);
      target.see(detail::ArrayAccess::impl(addend));
      if (target.trace() || target.sharded())
        throw Error("internal error: '" + std::string(P::name) + "' accumulates only on concrete arrays on no mesh");
      return std::apply(
          [&](auto const&... ops) {
            return AnyArray(P::impl_accumulating(params_, P::shape_rule(params_, ops...), ops...,
                                                 addend.as<out_element>(), static_cast<out_element>(scale)));
          },
          rebuild(inputs));
    } else {
      return PrimitiveBase::evaluate_accumulating(inputs, addend, scale);
    }
  }

  std::vector<MaybeArray> jvp(std::span<AnyArray const> primals, std::span<MaybeArray const> tangents,
                              std::span<AnyArray const> outputs) const override {
    bool any = false;
    for (auto const& t : tangents) any = any || t.has_value();
    if (!any) return {std::nullopt};
    // An integer or bool output's tangent is zero whatever the operands'; not
    // instantiating P's rule there keeps a file that binds integer ops (vmap's
    // batching operations, indexing) from compiling derivative code for them.
    if constexpr (!may_be_float()) {
      return {std::nullopt};
    } else if constexpr (has_jvp()) {
      if (!float_output(outputs[0])) return {std::nullopt};
      auto const out = typed_output(outputs[0]);
      auto result = std::apply(
          [&](auto const&... all) { return P::jvp(params_, out, all...); },
          std::tuple_cat(rebuild(primals), rebuild_tangents(primals, tangents)));
      if constexpr (detail::is_symbolic_zero<decltype(result)>::value) return {std::nullopt};
      else return {erased_output(result)};
    } else if constexpr (has_expand()) {
      return expansion_jvp(expansion(), primals, tangents);
    } else {
      throw Error("Differentiation rule for '" + std::string(P::name) + "' not implemented");
    }
  }

  std::vector<MaybeArray> vjp(std::span<MaybeArray const> cotangents, std::span<AnyArray const> primals,
                              std::span<AnyArray const> outputs, Wanted wanted) const override {
    std::vector<MaybeArray> result;
    if (!cotangents[0]) {
      result.assign(primals.size(), std::nullopt);
      return result;
    }
    if constexpr (!may_be_float()) {  // no cotangent reaches an integer output (as in jvp)
      result.assign(primals.size(), std::nullopt);
      return result;
    } else if constexpr (has_vjp()) {
      if (!float_output(outputs[0])) {
        result.assign(primals.size(), std::nullopt);
        return result;
      }
      auto const ct = typed_output(*cotangents[0]);
      auto const out = typed_output(outputs[0]);
      auto cts = std::apply(
          [&](auto const&... ops) {
            if constexpr (has_masked_vjp()) return P::vjp(params_, operands_wanted(wanted), ct, out, ops...);
            else return P::vjp(params_, ct, out, ops...);
          },
          rebuild(primals));
      if constexpr (detail::is_tuple<decltype(cts)>::value) {
        static_assert(std::tuple_size_v<decltype(cts)> == sizeof...(Operands), "a VJP rule returns one cotangent per operand");
        [&]<std::size_t... I>(std::index_sequence<I...>) {
          (detail::append_cotangent(std::get<I>(cts), counts_[I], result), ...);
        }(std::index_sequence_for<Operands...>{});
      } else {
        static_assert(sizeof...(Operands) == 1, "a VJP rule of several operands returns a std::tuple");
        detail::append_cotangent(cts, counts_[0], result);
      }
      return result;
    } else if constexpr (has_expand()) {
      return expansion_vjp(expansion(), cotangents, primals, wanted);
    } else {
      throw Error("Differentiation rule for '" + std::string(P::name) + "' not implemented");
    }
  }

  std::optional<std::size_t> forwarded_operand(std::span<Shape const> shapes,
                                               std::span<std::optional<double> const> uniform) const override {
    if constexpr (requires(Shape const& s) { P::is_identity(params_, s); }) {
      if (shapes.size() == 1 && P::is_identity(params_, shapes[0])) return 0;
      return std::nullopt;
    } else if constexpr (requires { P::forwarded_operand(params_, uniform); }) {
      return P::forwarded_operand(params_, uniform);
    } else {
      return std::nullopt;
    }
  }
  bool is_elementwise() const override { return has_run_row(); }
  RowKernel row_kernel() const override {
    if constexpr (has_run_row())
      return {[](void const* self, std::span<void const* const> values, std::span<std::int64_t const> steps,
                 std::span<std::uint32_t const> operands, void* out, std::int64_t count) {
                P::run_row(static_cast<PrimitiveOf const*>(self)->params_, values, steps, operands, out, count);
              },
              this};
    else return PrimitiveBase::row_kernel();
  }

  std::unique_ptr<RowFold> row_fold(Shape const& operand) const override {
    if constexpr (requires { P::template row_fold<out_element>(params_, operand); })
      return P::template row_fold<out_element>(params_, operand);
    else return nullptr;
  }

  bool same_as(PrimitiveBase const& other) const override {
    if constexpr (std::equality_comparable<Params>) {
      auto const* o = dynamic_cast<PrimitiveOf const*>(&other);
      return o && o->counts_ == counts_ && o->params_ == params_;
    } else {
      return false;
    }
  }

  std::optional<Partitioned> partition(std::span<AnyArray const> parts, std::span<Layout const> layouts,
                                       Resharder const& reshard) const override {
    if constexpr (requires { P::partition(params_, layouts, reshard, std::declval<Operands const&>()...); })
      return std::apply([&](auto const&... ops) { return P::partition(params_, layouts, reshard, ops...); }, rebuild(parts));
    else return std::nullopt;
  }
  std::optional<Partitioned> partition_as(std::span<AnyArray const> parts, std::span<Layout const> layouts,
                                          Layout const& wanted, Resharder const& reshard) const override {
    if constexpr (requires { P::partition_as(params_, wanted, layouts, reshard, std::declval<Operands const&>()...); })
      return std::apply([&](auto const&... ops) { return P::partition_as(params_, wanted, layouts, reshard, ops...); },
                        rebuild(parts));
    else return std::nullopt;
  }
  std::optional<Layout> wanted_operand_layout(std::size_t k, Shape const& operand_shape) const override {
    if constexpr (requires { P::wanted_operand_layout(params_, k, operand_shape); })
      return P::wanted_operand_layout(params_, k, operand_shape);
    else return std::nullopt;
  }
  std::optional<AxisVariance> axis_variance() const override {
    if constexpr (requires { P::axis_variance(params_); }) return P::axis_variance(params_);
    else return std::nullopt;
  }
  bool binds_axis(std::string_view axis_name) const override {
    if constexpr (requires { P::binds_axis(params_, axis_name); }) return P::binds_axis(params_, axis_name);
    else return false;
  }

  Batched batch(std::span<AnyArray const> inputs, std::span<BatchDim const> dims, AxisData const& axis) const override {
    if constexpr (has_batch()) {
      auto [out, dim] = std::apply([&](auto const&... ops) { return P::batch(params_, axis, dims, ops...); }, rebuild(inputs));
      return {{erased_output(out)}, {dim}};
    } else {
      return PrimitiveBase::batch(inputs, dims, axis);
    }
  }

 private:
  AnyArray evaluate_one(std::span<AnyArray const> inputs) const {
    return std::apply(
        [&](auto const&... ops) {
          if constexpr (requires { P::bind(params_, ops...); }) return AnyArray(P::bind(params_, ops...));
          else return AnyArray(detail::bind<P>(params_, ops...));
        },
        rebuild(inputs));
  }
  static constexpr bool erased_out = std::same_as<out_type, AnyArray>;
  /// Whether P's kernel can add its result into a copy of an addend
  /// (`impl_accumulating(params, out_shape, operands..., addend, scale)`).
  static constexpr bool has_impl_accumulating() {
    if constexpr (erased_out) return false;
    else
      return requires {
        P::impl_accumulating(std::declval<Params const&>(), std::declval<Shape>(), std::declval<Operands const&>()...,
                             std::declval<out_type const&>(), std::declval<typename out_type::value_type>());
      };
  }
  /// The output's element type; void for a dtype-generic primitive's.
  struct erased_element {
    using value_type = void;
  };
  using out_element = typename std::conditional_t<erased_out, erased_element, out_type>::value_type;

  /// Whether the output can be real or complex floating (else it takes no derivatives).
  static constexpr bool may_be_float() {
    if constexpr (erased_out) return true;
    else return InexactElement<out_element>;
  }
  /// Whether this output is real or complex floating (known at compile time unless erased).
  static bool float_output(AnyArray const& out) {
    if constexpr (erased_out) return has_tangent_space(out.dtype());
    else return true;
  }
  /// An output (or its cotangent) as the rules take it.
  static decltype(auto) typed_output(AnyArray const& a) {
    if constexpr (erased_out) return (a);
    else return a.as<out_element>();
  }
  /// A rule's result as an AnyArray (an expression is evaluated).
  template <class R>
  static AnyArray erased_output(R const& r) {
    if constexpr (erased_out) return r;
    else return AnyArray(Array<out_element>(r));
  }

  static constexpr bool has_expand() {
    return requires(Params const& p, Operands const&... ops) { P::expand(p, ops...); };
  }
  /// This application as the equations P::expand records. (A template, so
  /// that an explicit instantiation of this class, the precompiled
  /// runtime's, does not instantiate it for a primitive without `expand`.)
  template <class = void>
  FlatFunction expansion() const {
    return [this](std::vector<AnyArray> const& inputs) {
      return std::apply([&](auto const&... ops) { return std::vector<AnyArray>{AnyArray(P::expand(params_, ops...))}; },
                        rebuild(inputs));
    };
  }
  static constexpr bool has_jvp() {
    return requires(Params const& p, out_type const& out, Operands const&... ops) { P::jvp(p, out, ops..., ops...); };
  }
  static constexpr bool has_batch() {
    return requires(Params const& p, AxisData const& axis, std::span<BatchDim const> dims, Operands const&... ops) {
      P::batch(p, axis, dims, ops...);
    };
  }
  static constexpr bool has_run_row() {
    return requires(Params const& p, std::span<void const* const> v, std::span<std::int64_t const> st,
                    std::span<std::uint32_t const> o, void* out) {
      P::run_row(p, v, st, o, out, std::int64_t{});
    };
  }
  static constexpr bool has_masked_vjp() {
    return requires(Params const& p, Wanted w, out_type const& ct, Operands const&... ops) { P::vjp(p, w, ct, ct, ops...); };
  }
  static constexpr bool has_vjp() {
    return has_masked_vjp() ||
           requires(Params const& p, out_type const& ct, Operands const&... ops) { P::vjp(p, ct, ct, ops...); };
  }
  /// `wanted` per operand (a vector operand: if any of its arrays is).
  struct OperandsWanted {
    std::array<std::uint8_t, sizeof...(Operands)> flags;
    operator Wanted() const noexcept { return Wanted(flags); }
  };
  OperandsWanted operands_wanted(Wanted wanted) const {
    OperandsWanted w{};
    for (std::size_t i = 0, pos = 0; i < sizeof...(Operands); ++i)
      for (std::size_t k = 0; k < counts_[i]; ++k) w.flags[i] |= wanted[pos++] ? 1 : 0;
    return w;
  }

  std::tuple<Operands...> rebuild(std::span<AnyArray const> in) const {
    std::size_t pos = 0;
    return [&]<std::size_t... I>(std::index_sequence<I...>) {
      return std::tuple<Operands...>{detail::operand_traits<Operands>::rebuild(in, pos, counts_[I])...};
    }(std::index_sequence_for<Operands...>{});
  }
  /// Tangent operands, with symbolic zeros made real as stride-0 zero views.
  std::tuple<Operands...> rebuild_tangents(std::span<AnyArray const> primals, std::span<MaybeArray const> tangents) const {
    std::vector<AnyArray> filled;
    filled.reserve(primals.size());
    for (std::size_t i = 0; i < primals.size(); ++i) filled.push_back(detail::tangent_or_zeros(primals[i], tangents[i]));
    return rebuild(filled);
  }

  /// A rule declared with a signature its caller does not match would be
  /// silently ignored (and fail at run time as "not implemented"): these
  /// stop the build instead, in the instantiation that names the primitive.
  static constexpr void check_rules() {
    static_assert(!detail::declares_jvp<P> || has_jvp() || has_expand(),
                  "jaxcc: this primitive's `jvp` rule does not match jvp(params, out, primals..., tangents...) for "
                  "these operands (see graph/primitive_of.hpp)");
    static_assert(!detail::declares_vjp<P> || has_vjp() || has_expand(),
                  "jaxcc: this primitive's `vjp` rule does not match vjp(params, [wanted,] ct, out, primals...) for "
                  "these operands (see graph/primitive_of.hpp)");
    static_assert(!detail::declares_expand<P> || has_expand() || has_jvp(),
                  "jaxcc: this primitive's `expand` rule does not match expand(params, operands...) for these operands");
    static_assert(!detail::declares_batch<P> || has_batch(),
                  "jaxcc: this primitive's `batch` rule does not match batch(params, axis, dims, operands...) for these "
                  "operands (see graph/primitive_of.hpp)");
    static_assert(!detail::declares_partition<P> ||
                      requires(Params const& p, std::span<Layout const> l, Resharder const& r, Operands const&... ops) {
                        P::partition(p, l, r, ops...);
                      },
                  "jaxcc: this primitive's `partition` rule does not match partition(params, layouts, reshard, "
                  "operands...) for these operands (see graph/primitive_of.hpp)");
    static_assert(!detail::declares_partition_as<P> ||
                      requires(Params const& p, Layout const& w, std::span<Layout const> l, Resharder const& r,
                               Operands const&... ops) { P::partition_as(p, w, l, r, ops...); },
                  "jaxcc: this primitive's `partition_as` rule does not match partition_as(params, wanted, layouts, "
                  "reshard, operands...) for these operands (see graph/primitive_of.hpp)");
    static_assert(!detail::declares_run_row<P> || has_run_row(),
                  "jaxcc: this primitive's `run_row` rule does not match run_row(params, values, steps, operands, out, "
                  "count)");
    static_assert(!detail::declares_row_fold<P> ||
                      requires(Params const& p, Shape const& s) { P::template row_fold<out_element>(p, s); },
                  "jaxcc: this primitive's `row_fold` rule does not match row_fold<T>(params, operand_shape)");
    static_assert(!detail::declares_forwarded_operand<P> ||
                      requires(Params const& p, std::span<std::optional<double> const> u) { P::forwarded_operand(p, u); },
                  "jaxcc: this primitive's `forwarded_operand` rule does not match forwarded_operand(params, uniform)");
    static_assert(!detail::declares_is_identity<P> || requires(Params const& p, Shape const& s) { P::is_identity(p, s); },
                  "jaxcc: this primitive's `is_identity` rule does not match is_identity(params, operand_shape)");
    static_assert(!detail::declares_params_string<P> || requires(Params const& p) { P::params_string(p); },
                  "jaxcc: this primitive's `params_string` rule does not match params_string(params)");
    static_assert(!detail::declares_axis_variance<P> || requires(Params const& p) { P::axis_variance(p); },
                  "jaxcc: this primitive's `axis_variance` rule does not match axis_variance(params)");
    static_assert(!detail::declares_binds_axis<P> || requires(Params const& p, std::string_view n) { P::binds_axis(p, n); },
                  "jaxcc: this primitive's `binds_axis` rule does not match binds_axis(params, axis_name)");
  }

  Params params_;
  std::array<std::size_t, sizeof...(Operands)> counts_;
};

/// The shape rule first (bad input fails before any work is done, naming
/// the shapes), then the one bind path (graph/bind_target.hpp): a record in
/// the innermost trace of the operands, or the application partitioned over
/// the mesh an operand is laid out on, or the kernel.
template <class P, class... Operands>
JAXCC_RUNTIME_INLINE auto Binder<P, Operands...>::bind(typename P::Params const& params,
    Operands const&... operands) -> out_type {
  auto out_shape = P::shape_rule(params, operands...);
  return bind_to(
      target_of(operands...), [&](Trace& trace) { return record<P>(trace, params, std::move(out_shape), operands...); },
      [&] { return apply_sharded<P>(params, operands...); },
      [&] { return P::impl(params, std::move(out_shape), operands...); });
}

}  // namespace jaxcc::graph
