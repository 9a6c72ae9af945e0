; ModuleID = 'numba_ext'
source_filename = "numba_ext"
target triple = "spirv64-unknown-unknown"

@local_barrier_local2 = internal addrspace(3) global [16 x float] poison, align 16

define spir_kernel void @local_barrier(ptr addrspace(1) %a, i64 %0, i64 %1, i64 %2, ptr addrspace(1) %out, i64 %3, i64 %4, i64 %5) {
entry:
  %l0 = alloca i64, align 8
  %l1 = alloca i64, align 8
  %l2 = alloca i64, align 8
  %l3 = alloca i64, align 8
  %l4 = alloca float, align 4
  %l5 = alloca i64, align 8
  %l6 = alloca i64, align 8
  %l7 = alloca i64, align 8
  %l8 = alloca i64, align 8
  %l9 = alloca float, align 4
  %l10 = alloca i64, align 8
  %l11 = alloca i64, align 8
  br label %b0

b0:                                               ; preds = %entry
  %call = call spir_func i64 @_Z13get_global_idj(i32 0)
  store i64 %call, ptr %l0, align 4
  %call1 = call spir_func i64 @_Z12get_local_idj(i32 0)
  store i64 %call1, ptr %l1, align 4
  store i64 %1, ptr %l2, align 4
  %v = load i64, ptr %l0, align 4
  store i64 %v, ptr %l3, align 4
  %v2 = load i64, ptr %l3, align 4
  %t = mul i64 %v2, 4
  %off = add i64 %0, %t
  %p = getelementptr i8, ptr addrspace(1) %a, i64 %off
  %ld = load float, ptr addrspace(1) %p, align 4
  store float %ld, ptr %l4, align 4
  %v3 = load i64, ptr %l1, align 4
  store i64 %v3, ptr %l5, align 4
  %v4 = load i64, ptr %l5, align 4
  %t5 = mul i64 %v4, 1
  %lin = add i64 0, %t5
  %p6 = getelementptr float, ptr addrspace(3) @local_barrier_local2, i64 %lin
  %v7 = load float, ptr %l4, align 4
  store float %v7, ptr addrspace(3) %p6, align 4
  call spir_func void @_Z7barrierj(i32 1)
  store i64 15, ptr %l6, align 4
  %v8 = load i64, ptr %l6, align 4
  %v9 = load i64, ptr %l1, align 4
  %sub = sub i64 %v8, %v9
  store i64 %sub, ptr %l7, align 4
  %v10 = load i64, ptr %l7, align 4
  %neg = icmp slt i64 %v10, 0
  %wrapped = add i64 %v10, 16
  %idx = select i1 %neg, i64 %wrapped, i64 %v10
  store i64 %idx, ptr %l8, align 4
  %v11 = load i64, ptr %l8, align 4
  %t12 = mul i64 %v11, 1
  %lin13 = add i64 0, %t12
  %p14 = getelementptr float, ptr addrspace(3) @local_barrier_local2, i64 %lin13
  %ld15 = load float, ptr addrspace(3) %p14, align 4
  store float %ld15, ptr %l9, align 4
  store i64 %4, ptr %l10, align 4
  %v16 = load i64, ptr %l0, align 4
  store i64 %v16, ptr %l11, align 4
  %v17 = load i64, ptr %l11, align 4
  %t18 = mul i64 %v17, 4
  %off19 = add i64 %3, %t18
  %p20 = getelementptr i8, ptr addrspace(1) %out, i64 %off19
  %v21 = load float, ptr %l9, align 4
  store float %v21, ptr addrspace(1) %p20, align 4
  call spir_func void @_Z7barrierj(i32 1)
  ret void
}

declare spir_func i64 @_Z13get_global_idj(i32)

declare spir_func i64 @_Z12get_local_idj(i32)

declare spir_func void @_Z7barrierj(i32)
