"""torch._functorch.config (functorch.compile.config): the settings AOTAutograd programs set, with PyTorch
2.15's names and defaults. ``config.patch(...)`` sets some for a ``with`` block; a name PyTorch does not have
raises AttributeError, as PyTorch's config module does.

Our aot_function (functorch/compile.py) traces with make_fx and recomputes the forward in the backward graph:
there is no joint-graph partitioner, AOT autograd cache, functionalization, fake tensor mode or activation
offloading for these flags to steer, so every flag here is accepted and read by nothing (a program that sets
them runs unchanged)."""

from minitorch.utils._config_module import install_config_module

activation_memory_budget = 1.0
activation_memory_budget_require_full_coverage = True
activation_memory_budget_runtime_estimator = "flops"
activation_memory_budget_solver = "dp"
activation_offload_cpu_gpu_bw = 50.0
activation_offload_separate_stream = False
activation_offload_sink_wait = False
activation_reload_prefetch = False
aggressive_recomputation = False
autograd_cache_allow_custom_autograd_functions = False
autograd_cache_normalize_inputs = True
backward_pass_autocast = "same_as_forward"
ban_recompute_long_fusible_chains = True
ban_recompute_materialized_backward = True
ban_recompute_not_in_allowlist = True
ban_recompute_reductions = True
ban_recompute_used_far_apart = True
bundled_autograd_cache = False
bypass_autograd_cache_key = False
check_custom_op_aliasing = True
cse = True
custom_op_default_layout_constraint = "needs_exact_strides"
debug_assert = False
debug_partitioner = False
decompose_custom_triton_ops = True
disable_guess_zero_tangent_for_mutated_input_subclass = False
donated_buffer = True
enable_activation_offloading = False
enable_autograd_cache = True
enable_complex_wrapper = False
enable_remote_autograd_cache = None
error_on_custom_op_aliasing = False
fake_tensor_allow_meta = True
fake_tensor_allow_unsafe_data_ptr_access = True
fake_tensor_crossref = False
fake_tensor_prefer_device_type = None
fake_tensor_propagate_real_tensors = False
force_autograd_cache = False
force_non_lazy_backward_lowering = False
functionalize_rng_ops = False
generate_fake_kernels_from_real_mismatches = False
graphsafe_rng_functionalization = True
guess_tangent_strides_as_outputs = True
is_non_builtin_to_include = False
joint_custom_pass = None
max_dist_from_bw = 1000
memory_budget_pareto_dir = None
recompute_views = False
remat_using_tags_for_fwd_loss_bwd_graph = True
saved_tensors_hooks_filtering_mode = "donated"
selective_decompose = False
static_weight_shapes = True
strict_autograd_cache = False
torch_compile_graph_format = "svg"
treat_parameters_as_free_to_save = True
unlift_effect_tokens = False
unsafe_allow_optimization_of_collectives = False
unsafe_treat_script_objects_as_zero_size = False
view_replay_for_aliased_outputs = True
visualize_memory_budget_pareto = False

install_config_module(__name__, strict=True)
